import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { variables } from "../../db/schema";
import { newId } from "../../lib/ids";
import { encryptJson, isUnboundCiphertext, variableAad } from "../../lib/secrets";
import { clear } from "../../db/queries/variables";
import { SECRET_MASK, type Variable, type VariableInput, type VariableUpdate, variableCursor } from "./schemas";
import { keysetPage } from "../../lib/pagination";
import { type AuditContext, auditStatement } from "../../db/queries/audit";

type Row = typeof variables.$inferSelect;

/** Secret values are kept AES-GCM encrypted (like integration credentials), bound to their row; plain ones as they are. */
const stored = (encryptionKey: string | undefined, environmentId: string, key: string, value: string, secret: boolean) =>
  secret ? encryptJson(encryptionKey, value, variableAad(environmentId, key)) : Promise.resolve(value);

/** What the audit log keeps of a variable: its API view, a secret's value masked, without the timestamps. */
const audited = (v: Pick<Variable, "key" | "value" | "secret">) => ({
  key: v.key,
  secret: v.secret,
  value: v.secret ? SECRET_MASK : v.value,
});

/** The API view of a row: a secret's value never leaves in clear. */
const toVariable = (row: Row): Variable => ({
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

/** Variables of one environment: the environment is fixed once, so no query can forget it. */
export function variablesRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byKey = (key: string) => and(eq(variables.environmentId, environmentId), eq(variables.key, key));
  async function find(key: string): Promise<Variable | null> {
    const [row] = await db.select().from(variables).where(byKey(key)).limit(1);
    return row ? toVariable(row) : null;
  }

  return {
    find,

    async list(limit: number, cursor?: string): Promise<{ data: Variable[]; nextCursor: string | null }> {
      const [after] = variableCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(variables)
        .where(and(eq(variables.environmentId, environmentId), after ? gt(variables.key, after) : undefined))
        .orderBy(asc(variables.key))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => variableCursor.encode([last.key]));
      return { data: page.rows.map(toVariable), nextCursor: page.nextCursor };
    },

    /** Returns null when the key is already taken. */
    async create(input: VariableInput, context: AuditContext, now = new Date()): Promise<Variable | null> {
      const [[row]] = await db.batch([
        db
          .insert(variables)
          .values({
            id: newId("var"),
            environmentId,
            key: input.key,
            value: await stored(encryptionKey, environmentId, input.key, input.value, input.secret),
            secret: input.secret,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning(),
        auditStatement(db, context, {
          environmentId,
          resource: "variable",
          resourceId: input.key,
          action: "created",
          before: null,
          after: audited(input),
        }),
      ]);
      return row ? toVariable(row) : null;
    },

    async update(key: string, input: VariableUpdate, context: AuditContext, now = new Date(), tries = 3): Promise<UpdateOutcome> {
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
      return tries > 1 ? this.update(key, input, context, now, tries - 1) : { status: "not_found" };
    },

    async remove(key: string, context: AuditContext): Promise<boolean> {
      const [current] = await db.select().from(variables).where(byKey(key)).limit(1);
      if (!current) return false;
      const [rows] = await db.batch([
        db
          .delete(variables)
          .where(and(byKey(key), eq(variables.id, current.id)))
          .returning({ id: variables.id }),
        auditStatement(db, context, {
          environmentId,
          resource: "variable",
          resourceId: key,
          action: "deleted",
          before: audited(current),
          after: null,
        }),
      ]);
      return rows.length > 0;
    },
  };
}
