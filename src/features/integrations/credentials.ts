import type { DestinationOptions } from "../../lib/destinations";
import { fieldErrors } from "../../lib/errors";
import { destinationSignal } from "../../providers/destination-scope";
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

/** Every string in the credentials, at any depth, masked; numbers, booleans and null stay as they are. */
export function maskCredentials(value: unknown): unknown {
  if (typeof value === "string") return maskString(value);
  if (Array.isArray(value)) return value.map(maskCredentials);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskCredentials(v)]));
  return value;
}

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

/** The paths of every stored string, which an update that leaves the credentials out keeps. */
export function storedPaths(stored: Record<string, unknown>): string[] {
  const paths: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string") paths.push(path);
    else if (Array.isArray(value) || isRecord(value)) for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
  };
  walk(stored, "credentials");
  return paths;
}

/** The credentials checked against the adapter's schema: issues with paths under `credentials`. */
export function credentialIssues(adapter: ProviderAdapter, credentials: unknown): { path: PropertyKey[]; message: string }[] {
  const result = adapter.credentials.safeParse(credentials);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: ["credentials", ...issue.path], message: issue.message }));
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
  const signal = destinationSignal(typeof timeout === "number" && timeout > 0 ? timeout : CHECK_TIMEOUT_MS, destinations);
  try {
    // An adapter that ignores the signal still does not hold the request past the timeout.
    const timedOut = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const result = await Promise.race([adapter.check(integration, signal), timedOut]);
    return { ok: result.ok, mode: "remote", detail: redact(result.detail, integration.credentials) };
  } catch {
    // An adapter's exception may quote a URL or header with a secret in it: say only what happened.
    const detail = signal.aborted ? `${adapter.id} did not answer in time.` : `The check could not reach ${adapter.id}.`;
    return { ok: false, mode: "remote", detail };
  }
}
