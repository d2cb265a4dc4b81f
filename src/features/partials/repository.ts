import { and, asc, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Step } from "../../engine/steps";
import type { Db } from "../../db/client";
import { type PartialDefinition, partials, partialVersions, workflows } from "../../db/schema";
import type { Actor } from "../../env";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { bumpContentStamp, contentStampOf } from "../../db/queries/content-stamps";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import type { WriteOutcome, WriteRecord } from "../workflows/repository";
import { versionCursor } from "../workflows/versions/schemas";
import { type Partial, type PartialInput, type PartialVersion, partialCursor } from "./schemas";
import { changedFields, summaryOf } from "../layouts/versions";

type Row = typeof partials.$inferSelect;
type VersionRow = typeof partialVersions.$inferSelect;
type Action = VersionRow["action"];

const toPartial = (row: Row): Partial => ({
  key: row.key,
  name: row.name,
  description: row.description,
  content: row.content,
  type: row.type,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toVersion = (row: VersionRow): PartialVersion => ({
  version: row.version,
  action: row.action,
  author: { type: row.authorType, id: row.authorId, name: row.authorName },
  summary: row.summary,
  createdAt: row.createdAt.toISOString(),
  definition: row.definition,
});

export const partialDefinitionOf = (l: Partial | PartialInput): PartialDefinition => ({
  key: l.key,
  name: l.name,
  description: l.description ?? null,
  content: l.content,
  type: l.type,
});

const RACE_RETRIES = 5;

/** Partials of one environment, versioned as workflows are; every write moves the environment's content stamp. */
export function partialsRepository(db: Db, environmentId: string) {
  const mine = eq(partials.environmentId, environmentId);
  const byKey = (key: string) => and(mine, eq(partials.key, key));

  /** The version row, written only if the partial's row now carries that version (as workflows' are). */
  const insertVersion = (
    partialId: string,
    version: number,
    definition: PartialDefinition,
    action: Action,
    actor: Actor,
    summary: string,
    at: Date,
  ) =>
    db
      .insert(partialVersions)
      .select(
        sql`SELECT ${newId("prv")}, environment_id, id, key, version, ${contentStampOf(environmentId)}, ${JSON.stringify(definition)},
          ${action}, ${actor.type}, ${actor.id}, ${actor.name}, ${summary}, ${at.getTime()}
        FROM partials WHERE environment_id = ${environmentId} AND id = ${partialId} AND version = ${version}`,
      )
      .onConflictDoNothing();

  const audit = (
    context: AuditContext,
    key: string,
    action: "created" | "updated" | "deleted" | "reverted" | "promoted",
    before: unknown,
    after: unknown,
  ) => auditStatement(db, context, { environmentId, resource: "partial", resourceId: key, action, before, after });

  const find = async (key: string): Promise<Partial | null> => {
    const [row] = await db.select().from(partials).where(byKey(key)).limit(1);
    return row ? toPartial(row) : null;
  };
  const idOf = async (key: string) => {
    const [row] = await db.select({ id: partials.id }).from(partials).where(byKey(key)).limit(1);
    return row?.id ?? null;
  };

  return {
    find,

    async list(limit: number, cursor?: string) {
      const [after] = partialCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(partials)
        .where(and(mine, after ? gt(partials.key, after) : undefined))
        .orderBy(asc(partials.key))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => partialCursor.encode([last.key]));
      return { data: page.rows.map(toPartial), nextCursor: page.nextCursor };
    },

    /** Every partial, for a workflow's checks and a promotion (an environment has a handful). */
    async all(): Promise<Partial[]> {
      return (await db.select().from(partials).where(mine).orderBy(asc(partials.key)).limit(1000)).map(toPartial);
    },

    /** Null when the key is taken. */
    async create(input: PartialInput, context: AuditContext, record: WriteRecord = {}, now = new Date()): Promise<Partial | null> {
      const id = newId("prt");
      const definition = partialDefinitionOf(input);
      const actor = record.author ?? context.actor;
      const [, [row]] = await db.batch([
        bumpContentStamp(db, environmentId),
        db
          .insert(partials)
          .values({
            id,
            environmentId,
            key: definition.key,
            name: definition.name,
            description: definition.description,
            content: definition.content,
            type: definition.type,
            version: 1,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning(),
        insertVersion(id, 1, definition, "created", actor, "Created", now),
        audit(context, input.key, record.auditAction === "promoted" ? "promoted" : "created", null, definition),
      ]);
      forgetEnvironmentGates(environmentId);
      return row ? toPartial(row) : null;
    },

    async update(
      key: string,
      input: PartialInput,
      context: AuditContext,
      options: { ifMatch?: readonly number[]; action?: Action; summary?: string } & WriteRecord = {},
      now = new Date(),
    ): Promise<WriteOutcome<Partial>> {
      for (let attempt = 0; ; attempt++) {
        const [current] = await db.select().from(partials).where(byKey(key)).limit(1);
        if (!current) return { status: "missing" };
        if (options.ifMatch && !options.ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const before = partialDefinitionOf(toPartial(current));
        const definition = partialDefinitionOf(input);
        const fields = changedFields(before, definition);
        if (fields.length === 0) return { status: "ok", value: toPartial(current) };
        const version = current.version + 1;
        const action = options.action ?? "updated";
        const actor = options.author ?? context.actor;
        const [, [row]] = await db.batch([
          bumpContentStamp(db, environmentId),
          db
            .update(partials)
            .set({
              name: definition.name,
              description: definition.description,
              content: definition.content,
              type: definition.type,
              version,
              updatedAt: now,
            })
            .where(and(byKey(key), eq(partials.id, current.id), eq(partials.version, current.version)))
            .returning(),
          insertVersion(current.id, version, definition, action, actor, options.summary ?? summaryOf(fields), now),
          audit(context, key, options.auditAction === "promoted" ? "promoted" : action, before, definition),
        ]);
        forgetEnvironmentGates(environmentId);
        if (row) return { status: "ok", value: toPartial(row) };
        if (options.ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /** Removes the row; its versions stay, so a trigger pinned before the delete still renders with it. */
    async remove(key: string, context: AuditContext, ifMatch?: readonly number[], now = new Date()): Promise<WriteOutcome<true>> {
      for (let attempt = 0; ; attempt++) {
        const [current] = await db.select().from(partials).where(byKey(key)).limit(1);
        if (!current) return { status: "missing" };
        if (ifMatch && !ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const version = current.version + 1;
        const definition = partialDefinitionOf(toPartial(current));
        // Numbered first (so the version row can read it), then gone, in one batch.
        const [, [moved]] = await db.batch([
          bumpContentStamp(db, environmentId),
          db
            .update(partials)
            .set({ version })
            .where(and(eq(partials.id, current.id), eq(partials.version, current.version)))
            .returning({ id: partials.id }),
          insertVersion(current.id, version, definition, "deleted", context.actor, "Deleted", now),
          audit(context, key, "deleted", definition, null),
          db.delete(partials).where(and(eq(partials.id, current.id), eq(partials.version, version))),
        ]);
        forgetEnvironmentGates(environmentId);
        if (moved) return { status: "ok", value: true };
        if (ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /** The versions of the live partial `key` (null: no such partial), newest first. */
    async versions(key: string, limit: number, cursor?: string) {
      const id = await idOf(key);
      if (!id) return null;
      const [before] = versionCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(partialVersions)
        .where(
          and(
            eq(partialVersions.environmentId, environmentId),
            eq(partialVersions.partialId, id),
            before === undefined ? undefined : lt(partialVersions.version, before),
          ),
        )
        .orderBy(desc(partialVersions.version))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => versionCursor.encode([last.version]));
      return { data: page.rows.map(toVersion), nextCursor: page.nextCursor };
    },

    async version(partialId: string, n: number): Promise<PartialVersion | null> {
      const [row] = await db
        .select()
        .from(partialVersions)
        .where(
          and(eq(partialVersions.environmentId, environmentId), eq(partialVersions.partialId, partialId), eq(partialVersions.version, n)),
        )
        .limit(1);
      return row ? toVersion(row) : null;
    },

    idOf,

    /** Live workflows whose steps mention `key` anywhere (a cheap first pass: the caller parses them). */
    async workflowsMentioning(key: string): Promise<{ key: string; steps: Step[] }[]> {
      const pattern = `%${key.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      return db
        .select({ key: workflows.key, steps: workflows.steps })
        .from(workflows)
        .where(
          and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt), sql`${workflows.steps} LIKE ${pattern} ESCAPE '\\'`),
        )
        .limit(1000);
    },
  };
}
