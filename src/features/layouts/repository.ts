import { and, asc, desc, eq, gt, isNull, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type LayoutDefinition, layouts, layoutVersions, workflows } from "../../db/schema";
import type { Actor } from "../../env";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { bumpContentStamp, contentStampOf } from "../../db/queries/content-stamps";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import type { WriteOutcome, WriteRecord } from "../workflows/repository";
import { versionCursor } from "../workflows/versions/schemas";
import { type Layout, type LayoutInput, type LayoutVersion, layoutCursor } from "./schemas";
import { changedFields, summaryOf } from "./versions";

type Row = typeof layouts.$inferSelect;
type VersionRow = typeof layoutVersions.$inferSelect;
type Action = VersionRow["action"];

const toLayout = (row: Row): Layout => ({
  key: row.key,
  name: row.name,
  description: row.description,
  html: row.html,
  text: row.text,
  isDefault: row.isDefault,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toVersion = (row: VersionRow): LayoutVersion => ({
  version: row.version,
  action: row.action,
  author: { type: row.authorType, id: row.authorId, name: row.authorName },
  summary: row.summary,
  createdAt: row.createdAt.toISOString(),
  definition: row.definition,
});

export const layoutDefinitionOf = (l: Layout | LayoutInput): LayoutDefinition => ({
  key: l.key,
  name: l.name,
  description: l.description ?? null,
  html: l.html,
  text: l.text ?? null,
  isDefault: l.isDefault ?? false,
});

const RACE_RETRIES = 5;

/** Layouts of one environment, versioned as workflows are; every write moves the environment's content stamp. */
export function layoutsRepository(db: Db, environmentId: string) {
  const mine = eq(layouts.environmentId, environmentId);
  const byKey = (key: string) => and(mine, eq(layouts.key, key));

  /** The version row, written only if the layout's row now carries that version (as workflows' are). */
  const insertVersion = (
    layoutId: string,
    version: number,
    definition: LayoutDefinition,
    action: Action,
    actor: Actor,
    summary: string,
    at: Date,
  ) =>
    db
      .insert(layoutVersions)
      .select(
        sql`SELECT ${newId("lyv")}, environment_id, id, key, version, ${contentStampOf(environmentId)}, ${JSON.stringify(definition)},
          ${action}, ${actor.type}, ${actor.id}, ${actor.name}, ${summary}, ${at.getTime()}
        FROM layouts WHERE environment_id = ${environmentId} AND id = ${layoutId} AND version = ${version}`,
      )
      .onConflictDoNothing();

  const audit = (
    context: AuditContext,
    key: string,
    action: "created" | "updated" | "deleted" | "reverted" | "promoted",
    before: unknown,
    after: unknown,
  ) => auditStatement(db, context, { environmentId, resource: "layout", resourceId: key, action, before, after });

  /**
   * The statements that take the default flag from the layout that has it (other than `key`): a
   * new version of it, in the same batch as the write that gives the flag to `key`.
   */
  const unsetDefault = async (key: string, context: AuditContext, actor: Actor, at: Date) => {
    const [current] = await db
      .select()
      .from(layouts)
      .where(and(mine, eq(layouts.isDefault, true), ne(layouts.key, key)))
      .limit(1);
    if (!current) return [];
    const before = layoutDefinitionOf(toLayout(current));
    const after = { ...before, isDefault: false };
    const version = current.version + 1;
    return [
      db
        .update(layouts)
        .set({ isDefault: false, version, updatedAt: at })
        .where(and(eq(layouts.id, current.id), eq(layouts.version, current.version))),
      insertVersion(current.id, version, after, "updated", actor, "isDefault changed", at),
      audit(context, current.key, "updated", before, after),
    ] as const;
  };

  const find = async (key: string): Promise<Layout | null> => {
    const [row] = await db.select().from(layouts).where(byKey(key)).limit(1);
    return row ? toLayout(row) : null;
  };
  const idOf = async (key: string) => {
    const [row] = await db.select({ id: layouts.id }).from(layouts).where(byKey(key)).limit(1);
    return row?.id ?? null;
  };

  return {
    find,

    async list(limit: number, cursor?: string) {
      const [after] = layoutCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(layouts)
        .where(and(mine, after ? gt(layouts.key, after) : undefined))
        .orderBy(asc(layouts.key))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => layoutCursor.encode([last.key]));
      return { data: page.rows.map(toLayout), nextCursor: page.nextCursor };
    },

    /** Every layout, for a workflow's checks and a promotion (an environment has a handful). */
    async all(): Promise<Layout[]> {
      return (await db.select().from(layouts).where(mine).orderBy(asc(layouts.key)).limit(1000)).map(toLayout);
    },

    /** Null when the key is taken. */
    async create(input: LayoutInput, context: AuditContext, record: WriteRecord = {}, now = new Date()): Promise<Layout | null> {
      // The flag moves only if this layout is made: a taken key changes nothing.
      if (await idOf(input.key)) return null;
      const id = newId("lay");
      const definition = layoutDefinitionOf(input);
      const actor = record.author ?? context.actor;
      const unset = definition.isDefault ? await unsetDefault(input.key, context, actor, now) : [];
      const [, [row]] = await db.batch([
        bumpContentStamp(db, environmentId),
        db
          .insert(layouts)
          .values({
            id,
            environmentId,
            key: definition.key,
            name: definition.name,
            description: definition.description,
            html: definition.html,
            text: definition.text,
            isDefault: definition.isDefault,
            version: 1,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning(),
        insertVersion(id, 1, definition, "created", actor, "Created", now),
        audit(context, input.key, record.auditAction === "promoted" ? "promoted" : "created", null, definition),
        ...unset,
      ]);
      forgetEnvironmentGates(environmentId);
      return row ? toLayout(row) : null;
    },

    async update(
      key: string,
      input: LayoutInput,
      context: AuditContext,
      options: { ifMatch?: readonly number[]; action?: Action; summary?: string } & WriteRecord = {},
      now = new Date(),
    ): Promise<WriteOutcome<Layout>> {
      for (let attempt = 0; ; attempt++) {
        const [current] = await db.select().from(layouts).where(byKey(key)).limit(1);
        if (!current) return { status: "missing" };
        if (options.ifMatch && !options.ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const before = layoutDefinitionOf(toLayout(current));
        const definition = layoutDefinitionOf(input);
        const fields = changedFields(before, definition);
        if (fields.length === 0) return { status: "ok", value: toLayout(current) };
        const version = current.version + 1;
        const action = options.action ?? "updated";
        const actor = options.author ?? context.actor;
        const unset = definition.isDefault && !before.isDefault ? await unsetDefault(key, context, actor, now) : [];
        const [, [row]] = await db.batch([
          bumpContentStamp(db, environmentId),
          db
            .update(layouts)
            .set({
              name: definition.name,
              description: definition.description,
              html: definition.html,
              text: definition.text,
              isDefault: definition.isDefault,
              version,
              updatedAt: now,
            })
            .where(and(byKey(key), eq(layouts.id, current.id), eq(layouts.version, current.version)))
            .returning(),
          insertVersion(current.id, version, definition, action, actor, options.summary ?? summaryOf(fields), now),
          audit(context, key, options.auditAction === "promoted" ? "promoted" : action, before, definition),
          ...unset,
        ]);
        forgetEnvironmentGates(environmentId);
        if (row) return { status: "ok", value: toLayout(row) };
        if (options.ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /** Removes the row; its versions stay, so a trigger pinned before the delete still renders with it. */
    async remove(key: string, context: AuditContext, ifMatch?: readonly number[], now = new Date()): Promise<WriteOutcome<true>> {
      for (let attempt = 0; ; attempt++) {
        const [current] = await db.select().from(layouts).where(byKey(key)).limit(1);
        if (!current) return { status: "missing" };
        if (ifMatch && !ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const version = current.version + 1;
        const definition = layoutDefinitionOf(toLayout(current));
        // Numbered first (so the version row can read it), then gone, in one batch.
        const [, [moved]] = await db.batch([
          bumpContentStamp(db, environmentId),
          db
            .update(layouts)
            .set({ version })
            .where(and(eq(layouts.id, current.id), eq(layouts.version, current.version)))
            .returning({ id: layouts.id }),
          insertVersion(current.id, version, definition, "deleted", context.actor, "Deleted", now),
          audit(context, key, "deleted", definition, null),
          db.delete(layouts).where(and(eq(layouts.id, current.id), eq(layouts.version, version))),
        ]);
        forgetEnvironmentGates(environmentId);
        if (moved) return { status: "ok", value: true };
        if (ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /** The versions of the live layout `key` (null: no such layout), newest first. */
    async versions(key: string, limit: number, cursor?: string) {
      const id = await idOf(key);
      if (!id) return null;
      const [before] = versionCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(layoutVersions)
        .where(
          and(
            eq(layoutVersions.environmentId, environmentId),
            eq(layoutVersions.layoutId, id),
            before === undefined ? undefined : lt(layoutVersions.version, before),
          ),
        )
        .orderBy(desc(layoutVersions.version))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => versionCursor.encode([last.version]));
      return { data: page.rows.map(toVersion), nextCursor: page.nextCursor };
    },

    async version(layoutId: string, n: number): Promise<LayoutVersion | null> {
      const [row] = await db
        .select()
        .from(layoutVersions)
        .where(and(eq(layoutVersions.environmentId, environmentId), eq(layoutVersions.layoutId, layoutId), eq(layoutVersions.version, n)))
        .limit(1);
      return row ? toVersion(row) : null;
    },

    idOf,

    /** The live workflows whose email steps name `key`. */
    async usedBy(key: string): Promise<string[]> {
      const rows = await db
        .select({ key: workflows.key })
        .from(workflows)
        .where(
          and(
            eq(workflows.environmentId, environmentId),
            isNull(workflows.deletedAt),
            sql`EXISTS (SELECT 1 FROM json_each(${workflows.steps}) AS s WHERE json_extract(s.value, '$.type') = 'email' AND json_extract(s.value, '$.layout') = ${key})`,
          ),
        )
        .orderBy(asc(workflows.key));
      return rows.map((r) => r.key);
    },
  };
}
