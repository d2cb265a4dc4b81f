import { eq } from "drizzle-orm";
import { decryptJson } from "../../lib/secrets";
import type { Db } from "../client";
import { variables } from "../schema";

/** A variable's value in clear: secret ones are stored encrypted. */
export const clear = (encryptionKey: string | undefined, row: { value: string; secret: boolean }) =>
  row.secret ? decryptJson<string>(encryptionKey, row.value) : Promise.resolve(row.value);

/** Every variable of an environment with its clear value, for templates and conditions (`vars.*`). */
export async function loadTemplateVariables(
  db: Db,
  environmentId: string,
  encryptionKey: string | undefined,
): Promise<Record<string, string>> {
  const rows = await db
    .select({ key: variables.key, value: variables.value, secret: variables.secret })
    .from(variables)
    .where(eq(variables.environmentId, environmentId));
  return Object.fromEntries(await Promise.all(rows.map(async (row) => [row.key, await clear(encryptionKey, row)] as const)));
}
