import { checkDestination, type DestinationOptions } from "../../lib/destinations";
import type { FieldError } from "../../lib/errors";
import type { ProviderAdapter } from "../../providers/types";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const at = (value: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

/**
 * Every field that decides where this integration's credentials or signed tokens go, by its path
 * in the API (`baseUrl`, `credentials.tokenUri`), with its value. Read from the credentials as the
 * adapter parses them, so a service-account file given as a JSON string is looked into too.
 */
export function destinationsOf(
  adapter: ProviderAdapter,
  credentials: Record<string, unknown>,
  baseUrl: string | null | undefined,
): Map<string, string | undefined> {
  const parsed = adapter.credentials.safeParse(credentials);
  const source = parsed.success ? parsed.data : credentials;
  const values = new Map<string, string | undefined>([["baseUrl", baseUrl ?? undefined]]);
  for (const path of adapter.destinations ?? []) {
    const value = at(source, path);
    values.set(`credentials.${path}`, typeof value === "string" ? value : undefined);
  }
  return values;
}

/**
 * The destinations an update moves to a new value. Going back to the provider's default (a field
 * cleared) takes nothing anywhere new, so it is not a move.
 */
export function movedDestinations(before: Map<string, string | undefined>, after: Map<string, string | undefined>): string[] {
  return [...after].filter(([path, value]) => value !== undefined && value !== before.get(path)).map(([path]) => path);
}

/** The URL destinations that the policy refuses, as field errors. Non-URL destinations (an AWS region) are held by their schema. */
export function refusedDestinations(destinations: Map<string, string | undefined>, options: DestinationOptions): FieldError[] {
  const errors: FieldError[] = [];
  for (const [path, value] of destinations) {
    if (value === undefined || !/^[a-z][a-z0-9+.-]*:/i.test(value)) continue;
    const verdict = checkDestination(value, options);
    if (!verdict.ok) errors.push({ path, message: `Not an allowed destination: ${verdict.reason}.` });
  }
  return errors;
}
