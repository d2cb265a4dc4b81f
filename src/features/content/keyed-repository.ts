import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { bumpContentStamp, contentStampOf } from "../../db/queries/content-stamps";
import { type VersionAuthorColumns, versionAuthorOf, versionHistory } from "../../db/queries/versioned-content";
import type { Actor } from "../../env";
import type { CursorCodec } from "../../lib/cursor";
import { type IdPrefix, newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import type { WriteOutcome, WriteRecord } from "../workflows/repository";
import { versionCursor } from "../workflows/versions/schemas";
import { changedFields, summaryOf } from "./versions";

export type ContentAction = "created" | "updated" | "deleted" | "reverted";

/** A version row of keyed content: what layout_versions and partial_versions share. */
export interface ContentVersionRow<Def> extends VersionAuthorColumns {
  version: number;
  action: ContentAction;
  summary: string;
  createdAt: Date;
  definition: Def;
}

/** A version as the API shows it. */
export interface ContentVersion<Def> {
  version: number;
  action: ContentAction;
  author: ReturnType<typeof versionAuthorOf>;
  summary: string;
  createdAt: string;
  definition: Def;
}

/** The row of keyed content: its own columns are its definition's fields but the key. */
interface ContentRow {
  id: string;
  key: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

type Spec<Row extends ContentRow, Item, Def extends { key: string }, Input> = KeyedContentSpec<Row, Item, Def, Input> & {
  toItem(row: Row): Item;
};

/**
 * What differs between two kinds of keyed, versioned content (layouts, partials): their tables
 * and how a row reads as the API's item and as a stored definition. The rest is this module's.
 */
export interface KeyedContentSpec<Row extends ContentRow, Item, Def extends { key: string }, Input> {
  resource: "layout" | "partial";
  table: SQLiteTable;
  /** The table's SQL name, for the version row's INSERT ... SELECT. */
  tableName: "layouts" | "partials";
  columns: { id: SQLiteColumn; environmentId: SQLiteColumn; key: SQLiteColumn; version: SQLiteColumn };
  versions: { table: SQLiteTable; environmentId: SQLiteColumn; ownerId: SQLiteColumn; version: SQLiteColumn };
  ids: { row: IdPrefix; version: IdPrefix };
  cursor: CursorCodec<readonly [string]>;
  /** What is saved, from an input, an item or a row (an item is its definition, version and times). */
  definitionOf(value: Item | Input | Row): Def;
}

/** Statements that go with a write in its batch (a layout's default flag moving off another layout). */
export type SideWrites<Def> = (write: {
  key: string;
  before: Def | null;
  after: Def;
  actor: Actor;
  context: AuditContext;
  at: Date;
}) => Promise<BatchItem<"sqlite">[]>;

const RACE_RETRIES = 5;

export type UpdateOptions = { ifMatch?: readonly number[]; action?: ContentAction; summary?: string } & WriteRecord;

/** A version row copied from the content row as a statement leaves it (so it carries the row's own columns and stamp). */
function versionInsert<Row extends ContentRow, Item, Def extends { key: string }, Input>(
  db: Db,
  environmentId: string,
  spec: Spec<Row, Item, Def, Input>,
) {
  const ver = spec.versions;
  return (ownerId: string, version: number, definition: Def, action: ContentAction, actor: Actor, summary: string, at: Date) =>
    db
      .insert(ver.table)
      .select(
        sql`SELECT ${newId(spec.ids.version)}, environment_id, id, key, version, ${contentStampOf(environmentId)}, ${JSON.stringify(definition)},
          ${action}, ${actor.type}, ${actor.id}, ${actor.name}, ${summary}, ${at.getTime()}
        FROM ${sql.identifier(spec.tableName)} WHERE environment_id = ${environmentId} AND id = ${ownerId} AND version = ${version}`,
      )
      .onConflictDoNothing();
}

/** The reads and statements that the reads and writes of keyed content share. */
function keyedStatements<Row extends ContentRow, Item, Def extends { key: string }, Input>(
  db: Db,
  environmentId: string,
  spec: Spec<Row, Item, Def, Input>,
) {
  const { table, columns: col, versions: ver } = spec;
  const mine = eq(col.environmentId, environmentId);
  const byKey = (key: string) => and(mine, eq(col.key, key));
  const current = async (key: string) => (await db.select().from(table).where(byKey(key)).limit(1))[0] as Row | undefined;
  const idOf = async (key: string) => (await current(key))?.id ?? null;
  const history = (ownerId: string) =>
    versionHistory<ContentVersionRow<Def>>(db, ver.table, ver.version, and(eq(ver.environmentId, environmentId), eq(ver.ownerId, ownerId)));
  const toVersion = (row: ContentVersionRow<Def>): ContentVersion<Def> => ({
    version: row.version,
    action: row.action,
    author: versionAuthorOf(row),
    summary: row.summary,
    createdAt: row.createdAt.toISOString(),
    definition: row.definition,
  });
  const contentColumns = ({ key: _key, ...rest }: Def) => rest;

  const insertVersion = versionInsert(db, environmentId, spec);
  const audit = (context: AuditContext, key: string, action: ContentAction | "promoted", before: unknown, after: unknown) =>
    auditStatement(db, context, { environmentId, resource: spec.resource, resourceId: key, action, before, after });

  /** The statements of a new version of `row`: its row moved from the version read, the version row, the audit entry. */
  const rewrite = (
    row: Row,
    after: Def,
    w: { action: ContentAction; audit: ContentAction | "promoted"; actor: Actor; summary: string },
    context: AuditContext,
    at: Date,
  ) =>
    [
      db
        .update(table)
        .set({ ...contentColumns(after), version: row.version + 1, updatedAt: at })
        .where(and(mine, eq(col.id, row.id), eq(col.version, row.version)))
        .returning(),
      insertVersion(row.id, row.version + 1, after, w.action, w.actor, w.summary, at),
      audit(context, row.key, w.audit, spec.definitionOf(spec.toItem(row)), after),
    ] as const;

  /** A create's statements (after the content stamp's): the row, none when the key is taken, its version 1, its audit entry. */
  const createStatements = (definition: Def, context: AuditContext, record: WriteRecord, at: Date) => {
    const id = newId(spec.ids.row);
    const row = { id, environmentId, key: definition.key, ...contentColumns(definition), version: 1, createdAt: at, updatedAt: at };
    return [
      db.insert(table).values(row).onConflictDoNothing().returning(),
      insertVersion(id, 1, definition, "created", record.author ?? context.actor, "Created", at),
      audit(context, definition.key, record.auditAction === "promoted" ? "promoted" : "created", null, definition),
    ] as const;
  };

  /** A delete's statements (after the content stamp's): numbered first, so the version row can read it, then gone. */
  const removeStatements = (row: Row, context: AuditContext, at: Date) => {
    const version = row.version + 1;
    const definition = spec.definitionOf(spec.toItem(row));
    return [
      db
        .update(table)
        .set({ version })
        .where(and(eq(col.id, row.id), eq(col.version, row.version)))
        .returning({ id: col.id }),
      insertVersion(row.id, version, definition, "deleted", context.actor, "Deleted", at),
      audit(context, row.key, "deleted", definition, null),
      db.delete(table).where(and(eq(col.id, row.id), eq(col.version, version))),
    ] as const;
  };

  return { mine, current, idOf, history, toVersion, contentColumns, insertVersion, audit, rewrite, createStatements, removeStatements };
}

type Statements<Row extends ContentRow, Def extends { key: string }> = ReturnType<typeof keyedStatements<Row, unknown, Def, unknown>>;

/** Reads: one, a page, all, and the versions of one. */
function keyedReads<Row extends ContentRow, Item, Def extends { key: string }, Input>(
  db: Db,
  spec: Spec<Row, Item, Def, Input>,
  { mine, current, idOf, history, toVersion }: Statements<Row, Def>,
) {
  const { table, columns: col } = spec;
  return {
    find: async (key: string) => {
      const row = await current(key);
      return row ? spec.toItem(row) : null;
    },
    idOf,

    async list(limit: number, cursor?: string) {
      const [after] = spec.cursor.read(cursor) ?? [];
      const rows = (await db
        .select()
        .from(table)
        .where(and(mine, after ? gt(col.key, after) : undefined))
        .orderBy(asc(col.key))
        .limit(limit + 1)) as Row[];
      const page = keysetPage(rows, limit, (last) => spec.cursor.encode([last.key]));
      return { data: page.rows.map(spec.toItem), nextCursor: page.nextCursor };
    },

    /** Every one of them, for a workflow's checks and a promotion (an environment has a handful). */
    async all(): Promise<Item[]> {
      return ((await db.select().from(table).where(mine).orderBy(asc(col.key)).limit(1000)) as Row[]).map(spec.toItem);
    },

    /** The versions of the live `key` (null: no such key), newest first. */
    async versions(key: string, limit: number, cursor?: string) {
      const id = await idOf(key);
      if (!id) return null;
      const [before] = versionCursor.read(cursor) ?? [];
      const rows = await history(id).list(limit + 1, before);
      const page = keysetPage(rows, limit, (last) => versionCursor.encode([last.version]));
      return { data: page.rows.map(toVersion), nextCursor: page.nextCursor };
    },

    async version(ownerId: string, n: number) {
      const row = await history(ownerId).at(n);
      return row ? toVersion(row) : null;
    },
  };
}

/** Writes: every one a batch that moves the content stamp, writes the row, its version row and its audit entry. */
function keyedWrites<Row extends ContentRow, Item, Def extends { key: string }, Input>(
  db: Db,
  environmentId: string,
  spec: Spec<Row, Item, Def, Input>,
  { idOf, current, rewrite, createStatements }: Statements<Row, Def>,
  sideWrites?: SideWrites<Def>,
) {
  const sideOf = (write: Parameters<SideWrites<Def>>[0]) => (sideWrites ? sideWrites(write) : Promise.resolve([]));
  return {
    /** Null when the key is taken. */
    async create(input: Input, context: AuditContext, record: WriteRecord = {}, now = new Date()): Promise<Item | null> {
      const definition = spec.definitionOf(input);
      // Side writes happen only if this one is made: a taken key changes nothing.
      if (await idOf(definition.key)) return null;
      const actor = record.author ?? context.actor;
      const [, [created]] = await db.batch([
        bumpContentStamp(db, environmentId),
        ...createStatements(definition, context, record, now),
        ...(await sideOf({ key: definition.key, before: null, after: definition, actor, context, at: now })),
      ]);
      forgetEnvironmentGates(environmentId);
      return created ? spec.toItem(created as Row) : null;
    },

    async update(
      key: string,
      input: Input,
      context: AuditContext,
      options: UpdateOptions = {},
      now = new Date(),
    ): Promise<WriteOutcome<Item>> {
      for (let attempt = 0; ; attempt++) {
        const row = await current(key);
        if (!row) return { status: "missing" };
        if (options.ifMatch && !options.ifMatch.includes(row.version)) return { status: "stale", current: row.version };
        const before = spec.definitionOf(spec.toItem(row));
        const after = spec.definitionOf(input);
        const fields = changedFields(before, after);
        if (fields.length === 0) return { status: "ok", value: spec.toItem(row) };
        const action = options.action ?? "updated";
        const actor = options.author ?? context.actor;
        const summary = options.summary ?? summaryOf(fields);
        const [, [updated]] = await db.batch([
          bumpContentStamp(db, environmentId),
          ...rewrite(row, after, { action, audit: options.auditAction === "promoted" ? "promoted" : action, actor, summary }, context, now),
          ...(await sideOf({ key, before, after, actor, context, at: now })),
        ]);
        forgetEnvironmentGates(environmentId);
        if (updated) return { status: "ok", value: spec.toItem(updated as Row) };
        if (options.ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: row.version + 1 };
      }
    },
  };
}

/** Removes the row; its versions stay, so a trigger pinned before the delete still renders with it. */
function keyedRemove<Row extends ContentRow, Def extends { key: string }>(
  db: Db,
  environmentId: string,
  { current, removeStatements }: Statements<Row, Def>,
) {
  return async function remove(
    key: string,
    context: AuditContext,
    ifMatch?: readonly number[],
    now = new Date(),
  ): Promise<WriteOutcome<true>> {
    for (let attempt = 0; ; attempt++) {
      const row = await current(key);
      if (!row) return { status: "missing" };
      if (ifMatch && !ifMatch.includes(row.version)) return { status: "stale", current: row.version };
      const [, [moved]] = await db.batch([bumpContentStamp(db, environmentId), ...removeStatements(row, context, now)]);
      forgetEnvironmentGates(environmentId);
      if (moved) return { status: "ok", value: true as const };
      if (ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: row.version + 1 };
    }
  };
}

/**
 * Keyed content of one environment, versioned as workflows are: every write is one batch that
 * moves the content stamp, writes the row, its version row (only if the row now carries that
 * version) and its audit entry; a version row outlives a delete, for the triggers pinned to it.
 */
export function keyedContentRepository<Row extends ContentRow, Item, Def extends { key: string }, Input>(
  db: Db,
  environmentId: string,
  spec: KeyedContentSpec<Row, Item, Def, Input>,
  sideWrites?: SideWrites<Def>,
) {
  // An item is its definition with its version and times, in that order (as the API shows it).
  const full: Spec<Row, Item, Def, Input> = {
    ...spec,
    toItem: (row) =>
      ({
        ...spec.definitionOf(row),
        version: row.version,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      }) as unknown as Item,
  };
  const statements = keyedStatements(db, environmentId, full);
  return {
    ...keyedReads(db, full, statements),
    ...keyedWrites(db, environmentId, full, statements, sideWrites),
    remove: keyedRemove(db, environmentId, statements),
    /** A new version of a row, for a side write that moves another row (a layout's default flag). */
    rewrite: statements.rewrite,
    /**
     * The statements of writes for a caller that batches many (a push): it reads the rows, puts
     * one content stamp move first, and writes these after it.
     */
    statements: {
      row: statements.current,
      create: statements.createStatements,
      update: statements.rewrite,
      remove: statements.removeStatements,
      definitionOf: (row: Row) => full.definitionOf(full.toItem(row)),
    },
  };
}
