// The Inbox's context, with no imports: the session route checks its hash and scopes the feed by
// its key, delivery writes the same key on each notification, and the dashboard may compute the hash.

/** A context as Novu's clients send it: each key an id, or `{ id, data? }`. */
export type InboxContext = Record<string, string | { id: string; data?: unknown }>;

/**
 * The feed key of a context: the canonical JSON of each key's id (keys sorted), '' for no context.
 * A notification shows in a session only when both keys are equal (Novu's exact match), so the
 * tenant counts as one key among the others (`tenant`).
 */
export function contextKey(ids: Readonly<Record<string, string>>): string {
  const keys = Object.keys(ids).sort();
  return keys.length === 0 ? "" : canonicalize(Object.fromEntries(keys.map((k) => [k, ids[k]])));
}

/** The ids of a context as sent (`data` plays no part in which notifications it sees). */
export const contextIds = (context: InboxContext): Record<string, string> =>
  Object.fromEntries(Object.entries(context).map(([k, v]) => [k, typeof v === "string" ? v : v.id]));

/** The feed key of a trigger: its tenant under `tenant`, with its other context keys. */
export const triggerContextKey = (tenantId: string | undefined | null, context: Readonly<Record<string, string>> | undefined | null) =>
  contextKey({ ...(context ?? {}), ...(tenantId ? { tenant: tenantId } : {}) });

/**
 * Canonical JSON as Novu's API hashes a context (`@tufjs/canonical-json`, the OLPC dialect): keys
 * sorted by code unit, no whitespace, strings escaping only `\` and `"`, integers only. Throws on
 * anything else (a float, undefined), as that library does.
 */
export function canonicalize(value: unknown): string {
  if (typeof value === "string") return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  if (typeof value === "boolean" || value === null || Number.isInteger(value)) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${canonicalize(k)}:${canonicalize(record[k])}`)
      .join(",")}}`;
  }
  throw new TypeError("Only strings, integers, booleans, null, arrays and objects have a canonical form.");
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * `contextHash` as a customer's backend computes it, and as Novu checks it: hex
 * HMAC-SHA256(hmacSecret, canonicalize(context)), the context exactly as the Inbox is given it.
 */
export async function contextHash(hmacSecret: string, context: InboxContext): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(hmacSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(canonicalize(context)))));
}
