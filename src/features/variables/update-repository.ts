import { and, eq } from "drizzle-orm";
import { variables } from "../../db/schema";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { clear } from "../../db/queries/variables";
import { isUnboundCiphertext } from "../../lib/secrets";
import { audited, stored, toVariable, type UpdateOutcome } from "./rows";
import type { VariableUpdate } from "./schemas";
import type { VariableScope } from "./scope-repository";

/** Changing a variable: its value, and its stored form when the secret flag changes. */
export function variableUpdates({ db, environmentId, encryptionKey, byKey }: VariableScope) {
  async function update(key: string, input: VariableUpdate, context: AuditContext, now = new Date(), tries = 3): Promise<UpdateOutcome> {
    const [current] = await db.select().from(variables).where(byKey(key)).limit(1);
    if (!current) return { status: "not_found" };
    const secret = input.secret ?? current.secret;
    if (current.secret && !secret && input.value === undefined) return { status: "would_reveal_secret" };
    // The stored form follows the flag: a value (new, or the old one) is re-encoded when the flag changes,
    // and a secret from before row binding is encrypted again bound to its row.
    const rebind = secret && current.secret && isUnboundCiphertext(current.value);
    const value = input.value ?? (secret === current.secret && !rebind ? undefined : await clear(encryptionKey, environmentId, current));
    const [[row]] = await db.batch([
      db
        .update(variables)
        .set({
          ...(value !== undefined ? { value: await stored(encryptionKey, environmentId, key, value, secret) } : {}),
          secret,
          updatedAt: now,
        })
        .where(and(byKey(key), eq(variables.updatedAt, current.updatedAt)))
        .returning(),
      auditStatement(db, context, {
        environmentId,
        resource: "variable",
        resourceId: key,
        action: "updated",
        before: audited(current),
        after: audited({ key, secret, value: input.value ?? current.value }),
      }),
    ]);
    if (row) return { status: "updated", variable: toVariable(row) };
    // Changed by someone else since it was read: decide again on the new state.
    return tries > 1 ? update(key, input, context, now, tries - 1) : { status: "not_found" };
  }

  return { update };
}
