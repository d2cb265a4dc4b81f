import { eq } from "drizzle-orm";
import { CiphertextError, decryptJson, variableAad } from "../../lib/secrets";
import type { Db } from "../client";
import { variables } from "../schema";

/** A variable's value in clear: secret ones are stored encrypted, bound to their environment and key. */
export const clear = (encryptionKey: string | undefined, environmentId: string, row: { key: string; value: string; secret: boolean }) =>
  row.secret ? decryptJson<string>(encryptionKey, row.value, variableAad(environmentId, row.key)) : Promise.resolve(row.value);

/** What a secret variable renders as wherever its value must not show (previews). */
export const secretPlaceholder = (key: string) => `[secret:${key}]`;

export interface TemplateVariables {
  /** `vars.*` for templates and conditions, secret values in clear: for the provider request only. */
  vars: Record<string, string>;
  /** The clear values of the secret ones, to redact from whatever is stored or answered. */
  secrets: string[];
}

const rowsOf = (db: Db, environmentId: string) =>
  db
    .select({ key: variables.key, value: variables.value, secret: variables.secret })
    .from(variables)
    .where(eq(variables.environmentId, environmentId));

/** Every variable of an environment with its clear value, for sends. */
export async function loadTemplateVariables(db: Db, environmentId: string, encryptionKey: string | undefined): Promise<TemplateVariables> {
  return openVariables(await rowsOf(db, environmentId), environmentId, encryptionKey);
}

/** Variables read already (delivery's one read of what it sends with, send-settings.ts), with their clear values. */
export async function openVariables(
  rows: readonly { key: string; value: string; secret: boolean }[],
  environmentId: string,
  encryptionKey: string | undefined,
): Promise<TemplateVariables> {
  const vars: Record<string, string> = {};
  const secrets: string[] = [];
  await Promise.all(
    rows.map(async (row) => {
      try {
        vars[row.key] = await clear(encryptionKey, environmentId, row);
        if (row.secret) secrets.push(vars[row.key]!);
      } catch (error) {
        // Not this row's ciphertext: left out rather than rendering another row's secret.
        if (!(error instanceof CiphertextError)) throw error;
        console.error(`variable ${row.key} of ${environmentId}: ${error.message}`);
      }
    }),
  );
  return { vars, secrets };
}

/** Every variable for a preview: secret ones are their placeholder before any filter runs, so no filter can reveal them. */
export async function loadPreviewVariables(db: Db, environmentId: string): Promise<Record<string, string>> {
  const rows = await rowsOf(db, environmentId);
  return Object.fromEntries(rows.map((row) => [row.key, row.secret ? secretPlaceholder(row.key) : row.value]));
}
