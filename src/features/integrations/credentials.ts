import { getOpenApiMetadata } from "@asteasolutions/zod-to-openapi";
import { z } from "@hono/zod-openapi";
import type { DestinationOptions } from "../../lib/destinations";
import { fieldErrors } from "../../lib/errors";
import { issueMessage } from "../../lib/issue-messages";
import { providerFor } from "../../providers/registry";
import type { IntegrationConfig, ProviderAdapter } from "../../providers/types";

/** What hides a credential in every answer. */
export const MASK = "••••";
/** Shorter values are hidden entirely: four characters of an eight-character secret are half of it. */
const SHOW_PREFIX_FROM = 12;
const CHECK_TIMEOUT_MS = 10_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `re_live_abcdef123` → `re_l••••`; a short value → `••••`. Counts code points, so an emoji is never cut in half. */
export function maskString(value: string): string {
  const chars = Array.from(value);
  return chars.length >= SHOW_PREFIX_FROM ? `${chars.slice(0, 4).join("")}${MASK}` : MASK;
}

/** Every string in a value, at any depth, masked; numbers, booleans and null stay as they are. */
function maskAll(value: unknown): unknown {
  if (typeof value === "string") return maskString(value);
  if (Array.isArray(value)) return value.map(maskAll);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskAll(v)]));
  return value;
}

/** The slice of JSON Schema that zod's converter writes for the adapters' credentials. */
type JsonSchema = {
  type?: string | string[];
  writeOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** The alternatives of a schema that describe a value of this JSON type; a secret marked on a union marks each branch. */
function branchesFor(schema: JsonSchema, type: "string" | "object" | "array"): JsonSchema[] {
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  if (nested.length) return nested.flatMap((b) => branchesFor(schema.writeOnly ? { ...b, writeOnly: true } : b, type));
  return [schema.type ?? []].flat().includes(type) ? [schema] : [];
}

/**
 * Credentials as an answer shows them: a field the provider's schema marks `writeOnly` (a secret)
 * masked, any other setting (a sender, an account id, a public URL) in clear. What the schema does
 * not describe, or describes only loosely, is masked: a field is shown only when known to be no secret.
 */
export function maskCredentials(value: unknown, schema: JsonSchema | undefined): unknown {
  const type = typeof value === "string" ? "string" : Array.isArray(value) ? "array" : isRecord(value) ? "object" : null;
  if (type === null) return value;
  const branches = schema ? branchesFor(schema, type) : [];
  if (branches.length === 0 || branches.some((b) => b.writeOnly)) return maskAll(value);
  if (Array.isArray(value)) {
    const items = branches.map((b) => b.items).filter((s) => s !== undefined);
    return value.map((item) => maskCredentials(item, items.length ? { anyOf: items } : undefined));
  }
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        const fields = branches.map((b) => b.properties?.[k]).filter((s) => s !== undefined);
        return [k, maskCredentials(v, fields.length ? { anyOf: fields } : undefined)];
      }),
    );
  }
  return value;
}

/** The paths (`credentials.apiKey`) of the stored values an answer masks: the secrets. */
export function secretPaths(stored: Record<string, unknown>, schema: JsonSchema | undefined): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, shown: unknown, path: string) => {
    if (typeof value === "string") {
      if (value !== shown) paths.push(path);
    } else if (Array.isArray(value) || isRecord(value)) {
      const view = (shown ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) walk(v, view[k], `${path}.${k}`);
    }
  };
  walk(stored, maskCredentials(stored, schema), "credentials");
  return paths;
}

/** A provider's credentials as JSON Schema: what `GET /v1/providers` shows, and what says which fields are secret. */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();
export function credentialsJsonSchema(adapter: ProviderAdapter): Record<string, unknown> {
  let schema = jsonSchemas.get(adapter.credentials);
  if (!schema) {
    // What a form must collect is the schema's input; a refinement JSON Schema cannot express becomes `{}`.
    schema = z.toJSONSchema(adapter.credentials, {
      io: "input",
      unrepresentable: "any",
      // Adapters describe fields with `.openapi({ description, writeOnly })`, which zod's own converter does not read.
      override: ({ zodSchema, jsonSchema }) => {
        if (!(zodSchema instanceof z.ZodType)) return;
        const meta = getOpenApiMetadata(zodSchema);
        if (meta?.description && !jsonSchema.description) jsonSchema.description = meta.description;
        if (meta?.example !== undefined && !jsonSchema.examples) jsonSchema.examples = [meta.example];
        if (meta?.writeOnly) jsonSchema.writeOnly = true;
      },
    }) as Record<string, unknown>;
    jsonSchemas.set(adapter.credentials, schema);
  }
  return schema;
}

/** An integration's credentials as every answer shows them: its provider's secrets masked; everything, when the provider is gone. */
export const credentialsView = (provider: string, credentials: Record<string, unknown>): Record<string, unknown> => {
  const adapter = providerFor(provider);
  return maskCredentials(credentials, adapter ? credentialsJsonSchema(adapter) : undefined) as Record<string, unknown>;
};

/**
 * An update's credentials with the masked placeholders an answer showed (a form sent back as it
 * was read) replaced by the stored values they stand for. `kept` lists the paths of those.
 */
export function unmaskCredentials(given: Record<string, unknown>, stored: Record<string, unknown>) {
  const kept: string[] = [];
  const unmask = (value: unknown, old: unknown, path: string): unknown => {
    if (typeof value === "string") {
      if (typeof old === "string" && value === maskString(old)) {
        kept.push(path);
        return old;
      }
      return value;
    }
    if (Array.isArray(value)) return value.map((v, i) => unmask(v, Array.isArray(old) ? old[i] : undefined, `${path}.${i}`));
    if (isRecord(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmask(v, isRecord(old) ? old[k] : undefined, `${path}.${k}`)]));
    return value;
  };
  const credentials = unmask(given, stored, "credentials") as Record<string, unknown>;
  return { credentials, kept };
}

/** The credentials checked against the adapter's schema: issues with paths under `credentials`. */
export function credentialIssues(adapter: ProviderAdapter, credentials: unknown): { path: PropertyKey[]; message: string }[] {
  const result = adapter.credentials.safeParse(credentials);
  // In words here: the issue reaches fieldErrors rebuilt, without the details that would let it reword zod's message.
  return result.success ? [] : result.error.issues.map((issue) => ({ path: ["credentials", ...issue.path], message: issueMessage(issue) }));
}

/** Hides any credential string (of a guessable length or more) that an adapter's detail might repeat. */
function redact(text: string, credentials: Record<string, unknown>): string {
  const secrets: string[] = [];
  const collect = (value: unknown) => {
    if (typeof value === "string" && value.length >= 6) secrets.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) Object.values(value).forEach(collect);
  };
  collect(credentials);
  return secrets.sort((a, b) => b.length - a.length).reduce((out, secret) => out.replaceAll(secret, maskString(secret)), text);
}

export interface CheckResult {
  ok: boolean;
  mode: "remote" | "form";
  detail: string;
}

/**
 * Form first (a remote call with malformed credentials proves nothing), then the adapter's
 * harmless remote call where it has one.
 */
export async function checkIntegration(
  adapter: ProviderAdapter | undefined,
  integration: IntegrationConfig,
  destinations: DestinationOptions,
): Promise<CheckResult> {
  if (!adapter)
    return { ok: false, mode: "form", detail: `The provider "${integration.provider}" is no longer available in this deployment.` };
  if (integration.credentialsError)
    return { ok: false, mode: "form", detail: `The stored credentials cannot be read: ${integration.credentialsError}` };
  const errors = fieldErrors(credentialIssues(adapter, integration.credentials));
  if (errors.length) return { ok: false, mode: "form", detail: errors.map((e) => `${e.path}: ${e.message}`).join("; ") };
  if (!adapter.check) {
    return {
      ok: true,
      mode: "form",
      detail: `The credentials match the form ${adapter.id} expects; it has no harmless call to verify them with.`,
    };
  }
  const timeout = integration.settings.timeoutMs;
  const signal = AbortSignal.timeout(typeof timeout === "number" && timeout > 0 ? timeout : CHECK_TIMEOUT_MS);
  try {
    // An adapter that ignores the signal still does not hold the request past the timeout.
    const timedOut = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const result = await Promise.race([adapter.check(integration, { signal, destinations }), timedOut]);
    return { ok: result.ok, mode: "remote", detail: redact(result.detail, integration.credentials) };
  } catch {
    // An adapter's exception may quote a URL or header with a secret in it: say only what happened.
    const detail = signal.aborted ? `${adapter.id} did not answer in time.` : `The check could not reach ${adapter.id}.`;
    return { ok: false, mode: "remote", detail };
  }
}
