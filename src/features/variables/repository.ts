import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { variables } from "../../db/schema";
import { newId } from "../../lib/ids";
import { type Variable, type VariableInput, variableCursor } from "./schemas";
import { keysetPage } from "../../lib/pagination";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { audited, stored, toVariable } from "./rows";
import { type VariableScope, variableScope } from "./scope-repository";
import { variableUpdates } from "./update-repository";

export type { UpdateOutcome } from "./rows";

/** Reading, creating and deleting variables. */
function variableRecords({ db, environmentId, encryptionKey, byKey }: VariableScope) {
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

/** Variables of one environment: the environment is fixed once, so no query can forget it. */
export function variablesRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const scope = variableScope(db, environmentId, encryptionKey);
  return { ...variableRecords(scope), ...variableUpdates(scope) };
}
