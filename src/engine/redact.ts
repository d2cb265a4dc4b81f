import { textToBase64 } from "../lib/base64";
/** What stands for a secret variable's value in stored and returned message content. */
export const REDACTED = "[secret]";

/** Secrets shorter than this are left alone: replacing every "a" or "1" would garble the content. */
const MIN_REDACTED_LENGTH = 4;

/** The secret as it is, and as the cheap filters a template may have run on it would show it. */
function forms(secret: string): string[] {
  const all = [secret, secret.toUpperCase(), secret.toLowerCase(), encodeURIComponent(secret), textToBase64(secret)];
  return [...new Set(all)].filter((form) => form.length >= MIN_REDACTED_LENGTH);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/**
 * `value` with every secret (and its upper/lower case, URL-encoded and base64 forms) replaced by
 * `mask`, at any depth. Stored and returned content goes through this; the provider request never does.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[], mask = REDACTED): T {
  const all = [...new Set(secrets.flatMap(forms))].sort((a, b) => b.length - a.length);
  if (all.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return all.reduce((text, secret) => text.replaceAll(secret, mask), v);
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item)]));
    return v;
  };
  return walk(value) as T;
}
