import type { variables } from "../../db/schema";
import { encryptJson, variableAad } from "../../lib/secrets";
import { SECRET_MASK, type Variable } from "./schemas";

type Row = typeof variables.$inferSelect;

/** Secret values are kept AES-GCM encrypted (like integration credentials), bound to their row; plain ones as they are. */
export const stored = (encryptionKey: string | undefined, environmentId: string, key: string, value: string, secret: boolean) =>
  secret ? encryptJson(encryptionKey, value, variableAad(environmentId, key)) : Promise.resolve(value);

/** What the audit log keeps of a variable: its API view, a secret's value masked, without the timestamps. */
export const audited = (v: Pick<Variable, "key" | "value" | "secret">) => ({
  key: v.key,
  secret: v.secret,
  value: v.secret ? SECRET_MASK : v.value,
});

/** The API view of a row: a secret's value never leaves in clear. */
export const toVariable = (row: Row): Variable => ({
  id: row.id,
  key: row.key,
  value: row.secret ? SECRET_MASK : row.value,
  secret: row.secret,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export type UpdateOutcome =
  | { status: "updated"; variable: Variable }
  | { status: "not_found" }
  /** A secret may only become plain with a new value, or its old value would be readable. */
  | { status: "would_reveal_secret" };
