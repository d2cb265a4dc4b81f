import { readCredentials } from "../../db/queries/integrations";
import type { DestinationOptions } from "../../lib/destinations";
import { fieldErrors } from "../../lib/errors";
import { isUnboundCiphertext } from "../../lib/secrets";
import { providerFor } from "../../providers/registry";
import { credentialIssues, credentialsJsonSchema, MASK, secretPaths, unmaskCredentials } from "./credentials";
import { destinationsOf, movedDestinations, refusedDestinations } from "./destinations";
import type { IntegrationRow, IntegrationUpdateOutcome } from "./rows";
import type { IntegrationUpdate } from "./schemas";

/**
 * What an update does to an integration's stored credentials: the clear credentials to seal again
 * (none: they stay as stored), or the outcome that refuses the update. Stored secrets never follow
 * a moved destination (`baseUrl`, or a credential field the adapter names in `destinations`)
 * unless the caller sends them in full: a key holder who only saw the masked form must not be able
 * to send them, or a token signed with them, elsewhere.
 */
export async function credentialChange(
  row: IntegrationRow,
  input: IntegrationUpdate,
  policy: DestinationOptions,
  encryptionKey: string | undefined,
): Promise<{ outcome: IntegrationUpdateOutcome } | { rewrite: Record<string, unknown> | undefined }> {
  const adapter = providerFor(row.provider);
  const read = await readCredentials(row, encryptionKey);
  const stored = read.ok ? read.credentials : {};
  let clear: Record<string, unknown> | undefined;
  let kept: string[];
  if (input.credentials !== undefined) {
    if (!adapter)
      return {
        outcome: {
          status: "invalid",
          errors: [{ path: "credentials", message: `The provider "${row.provider}" is no longer available.` }],
        },
      };
    if (!read.ok && JSON.stringify(input.credentials).includes(MASK))
      return {
        outcome: {
          status: "invalid",
          errors: [{ path: "credentials", message: `The stored credentials cannot be read (${read.reason}): send them in full.` }],
        },
      };
    ({ credentials: clear, kept } = unmaskCredentials(input.credentials, stored));
    const errors = fieldErrors(credentialIssues(adapter, clear));
    if (errors.length) return { outcome: { status: "invalid", errors } };
  } else {
    // Settings shown in clear were never hidden from the caller: only the secrets stay behind unseen.
    kept = secretPaths(stored, adapter ? credentialsJsonSchema(adapter) : undefined);
  }
  if (adapter) {
    const before = destinationsOf(adapter, stored, row.baseUrl);
    const after = destinationsOf(adapter, clear ?? stored, input.baseUrl !== undefined ? input.baseUrl : row.baseUrl);
    const moved = movedDestinations(before, after);
    if (moved.length && kept.length) {
      const message = `Stored secrets do not follow a new ${moved.join(", ")}: send this value in full.`;
      return { outcome: { status: "resupply", moved, errors: kept.map((path) => ({ path, message })) } };
    }
    const refused = refusedDestinations(new Map([...after].filter(([path]) => moved.includes(path))), policy);
    if (refused.length) return { outcome: { status: "destination_not_allowed", errors: refused } };
  }
  // Credentials from before row binding are written again bound to this row.
  return { rewrite: clear ?? (read.ok && isUnboundCiphertext(row.credentials) ? stored : undefined) };
}
