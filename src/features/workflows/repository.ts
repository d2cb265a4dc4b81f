import { and, asc, eq, gt, inArray, isNull, lt, notExists, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import { triggers, type WorkflowDefinition, workflows } from "../../db/schema";
import type { Actor } from "../../env";
import type { AuditAction } from "../../db/schema";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { newId } from "../../lib/ids";
import { forgetGate } from "./gate-cache";
import { type Workflow, type WorkflowInput, type WorkflowListFilter, type WorkflowSummary, workflowCursor } from "./schemas";
import { keysetPage } from "../../lib/pagination";
import { summarise, versionChanges } from "./versions/changes";
import { insertVersion, type VersionAction } from "./versions/repository";

type Row = typeof workflows.$inferSelect;

/** LIKE with `\\` as its escape, so a search for `50%` or `a_b` matches those characters. */
const likeEscaped = (column: typeof workflows.key | typeof workflows.name, pattern: string) => sql`${column} LIKE ${pattern} ESCAPE '\\'`;

const toWorkflow = (row: Row): Workflow => ({
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description,
  active: row.active,
  critical: row.critical,
  unsubscribe: row.unsubscribe,
  tags: row.tags,
  payloadSchema: row.payloadSchema ?? null,
  steps: row.steps,
  version: row.version,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The content a version keeps: everything `PUT` takes. */
export const definitionOf = (w: Workflow | WorkflowInput): WorkflowDefinition => ({
  key: w.key,
  name: w.name,
  description: w.description ?? null,
  active: w.active,
  critical: w.critical,
  unsubscribe: w.critical ? "none" : w.unsubscribe,
  tags: w.tags,
  payloadSchema: w.payloadSchema ?? null,
  steps: w.steps,
});

/**
 * What a versioned write answers: the workflow, none by that key, or `stale` when the caller's
 * `If-Match` versions do not include the current one (or another write won the race for it).
 */
export type WriteOutcome<T> = { status: "ok"; value: T } | { status: "missing" } | { status: "stale"; current: number };

/**
 * How a write is recorded: the audit entry's action (by default what the version says) and the
 * version's author when it is not the caller (a promotion is authored "promotion from <env>").
 */
export interface WriteRecord {
  auditAction?: AuditAction;
  author?: Actor;
}

/** What an update did, for the audit log: the version's own action, or (de)activation when that is all it changed. */
const auditActionOf = (action: VersionAction, summary: string): AuditAction =>
  action !== "updated" ? action : summary === "Activated" ? "activated" : summary === "Deactivated" ? "deactivated" : "updated";

/** A save without `If-Match` that loses a race reads the workflow again and retries, at most this often. */
const RACE_RETRIES = 5;

/** Workflows of one environment: the environment is fixed once, so no query can forget it. */
export function workflowsRepository(db: Db, environmentId: string, logs: LogStore) {
  // Tombstones (deleted workflows kept for the triggers accepted before) are invisible to the API.
  const live = and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt));
  const byKey = (key: string) => and(live, eq(workflows.key, key));
  const columns = (input: WorkflowInput) => ({
    name: input.name,
    description: input.description ?? null,
    active: input.active,
    critical: input.critical,
    // Critical mail (password resets, receipts) carries no way out: it is stored so, and shown so.
    unsubscribe: input.critical ? ("none" as const) : input.unsubscribe,
    tags: input.tags,
    payloadSchema: input.payloadSchema ?? null,
    steps: input.steps,
  });

  /** The list's query, unrun: `list` runs it, and a test reads its plan. */
  const listQuery = (limit: number, after?: string, filter: WorkflowListFilter = {}) => {
    // A read only: the trigger path writes nothing for it, and an index makes it one seek per workflow.
    // Spelt out: drizzle leaves a column unqualified here, and inside the subquery an unqualified
    // environment_id would be the trigger's own, matching every environment.
    const lastTriggered = sql<
      number | null
    >`(SELECT max(t.accepted_at) FROM triggers AS t WHERE t.environment_id = "workflows"."environment_id" AND t.workflow_key = "workflows"."key")`;
    const pattern = filter.q ? `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
    return db
      .select({ row: workflows, lastTriggered })
      .from(workflows)
      .where(
        and(
          live,
          after ? gt(workflows.key, after) : undefined,
          filter.active === undefined ? undefined : eq(workflows.active, filter.active),
          pattern ? or(likeEscaped(workflows.key, pattern), likeEscaped(workflows.name, pattern)) : undefined,
        ),
      )
      .orderBy(asc(workflows.key))
      .limit(limit + 1);
  };

  const find = async (key: string): Promise<Workflow | null> => {
    const [row] = await db.select().from(workflows).where(byKey(key)).limit(1);
    return row ? toWorkflow(row) : null;
  };

  return {
    find,

    listQuery,

    async list(
      limit: number,
      cursor?: string,
      filter: WorkflowListFilter = {},
    ): Promise<{ data: WorkflowSummary[]; nextCursor: string | null }> {
      const [after] = workflowCursor.read(cursor) ?? [];
      const rows = await listQuery(limit, after, filter);
      const page = keysetPage(rows, limit, (last) => workflowCursor.encode([last.row.key]));
      // The log's trigger records: one call per shard for the page's keys, each a seek per key
      // (a max over its workflow index). Chosen over a `last_triggered_at` kept in D1, which
      // would cost delivery a D1 write per consumer batch and workflow (for a single trigger, one
      // per trigger: what the log left D1 to save), for a read only this list makes.
      const logged = await logs.lastTriggered(
        environmentId,
        page.rows.map((r) => r.row.key),
      );
      const data = page.rows.map(({ row, lastTriggered: legacy }) => {
        // D1's records from before the log took them, until they expire.
        const at = Math.max(logged.get(row.key) ?? -1, legacy ?? -1);
        return { ...toWorkflow(row), lastTriggeredAt: at < 0 ? null : new Date(at).toISOString() };
      });
      return { data, nextCursor: page.nextCursor };
    },

    /** Returns null when the key is already taken. The workflow and its version 1 go in one batch. */
    async create(input: WorkflowInput, context: AuditContext, record: WriteRecord = {}, now = new Date()): Promise<Workflow | null> {
      const id = newId("wf");
      const definition = definitionOf(input);
      const actor = record.author ?? context.actor;
      const audited = { environmentId, resource: "workflow", resourceId: input.key } as const;
      const [[row]] = await db.batch([
        db
          .insert(workflows)
          .values({ id, environmentId, key: input.key, ...columns(input), version: 1, createdAt: now, updatedAt: now })
          .onConflictDoNothing()
          .returning(),
        insertVersion(db, environmentId, { workflowId: id, version: 1, definition, action: "created", actor, summary: "Created", at: now }),
        auditStatement(db, context, { ...audited, action: record.auditAction ?? "created", before: null, after: definition }),
      ]);
      forgetGate(environmentId, input.key);
      return row ? toWorkflow(row) : null;
    },

    /**
     * Everything but the key, which a workflow keeps for life; a new version unless nothing changed.
     * The row moves from version n to n+1 only `WHERE version = n`, so of two saves made from the
     * same version exactly one lands: the check is the write. `ifMatch`: the versions the caller
     * saw (undefined: any).
     */
    async update(
      key: string,
      input: WorkflowInput,
      context: AuditContext,
      options: { ifMatch?: readonly number[]; action?: VersionAction; summary?: string } & WriteRecord = {},
      now = new Date(),
    ): Promise<WriteOutcome<Workflow>> {
      for (let attempt = 0; ; attempt++) {
        const current = await find(key);
        if (!current) return { status: "missing" };
        if (options.ifMatch && !options.ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const before = definitionOf(current);
        const definition = definitionOf(input);
        const changes = versionChanges(before, definition);
        if (changes.length === 0) return { status: "ok", value: current };
        const version = current.version + 1;
        const summary = options.summary ?? summarise(changes, definition);
        const action = options.action ?? "updated";
        const [[row]] = await db.batch([
          db
            .update(workflows)
            .set({ ...columns(input), version, updatedAt: now })
            .where(and(byKey(key), eq(workflows.id, current.id), eq(workflows.version, current.version)))
            .returning(),
          insertVersion(db, environmentId, {
            workflowId: current.id,
            version,
            definition,
            action,
            actor: options.author ?? context.actor,
            summary,
            at: now,
          }),
          auditStatement(db, context, {
            environmentId,
            resource: "workflow",
            resourceId: key,
            action: options.auditAction ?? auditActionOf(action, summary),
            before,
            after: definition,
          }),
        ]);
        forgetGate(environmentId, key);
        if (row) return { status: "ok", value: toWorkflow(row) };
        if (options.ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /**
     * Soft delete: the row stays as a tombstone, so triggers accepted before now still run the
     * steps they were accepted for (the engine reads workflows by id); the key is free at once.
     * Its last version says who deleted it.
     */
    async remove(key: string, context: AuditContext, ifMatch?: readonly number[], now = new Date()): Promise<WriteOutcome<true>> {
      for (let attempt = 0; ; attempt++) {
        const current = await find(key);
        if (!current) return { status: "missing" };
        if (ifMatch && !ifMatch.includes(current.version)) return { status: "stale", current: current.version };
        const version = current.version + 1;
        const definition = definitionOf(current);
        const [rows] = await db.batch([
          db
            .update(workflows)
            .set({ deletedAt: now, version })
            .where(and(byKey(key), eq(workflows.id, current.id), eq(workflows.version, current.version)))
            .returning({ id: workflows.id }),
          insertVersion(db, environmentId, {
            workflowId: current.id,
            version,
            definition,
            action: "deleted",
            actor: context.actor,
            summary: "Deleted",
            at: now,
          }),
          auditStatement(db, context, {
            environmentId,
            resource: "workflow",
            resourceId: key,
            action: "deleted",
            before: definition,
            after: null,
          }),
        ]);
        forgetGate(environmentId, key);
        if (rows.length > 0) return { status: "ok", value: true };
        if (ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: version };
      }
    },

    /**
     * Hard-deletes tombstones deleted before `olderThan` that no unfinished trigger accepted before
     * the delete still needs; for a retention job. Returns how many went.
     */
    async purgeDeletedWorkflows(olderThan: Date): Promise<number> {
      // D1's trigger records from before the log took them, until they expire.
      const stillNeeded = db
        .select({ one: sql`1` })
        .from(triggers)
        .where(
          and(
            eq(triggers.environmentId, workflows.environmentId),
            eq(triggers.workflowKey, workflows.key),
            sql`${triggers.acceptedAt} <= ${workflows.deletedAt}`,
            inArray(triggers.status, ["accepted", "processing"]),
          ),
        );
      const candidates = await db
        .select({ id: workflows.id, key: workflows.key, deletedAt: workflows.deletedAt })
        .from(workflows)
        .where(and(eq(workflows.environmentId, environmentId), lt(workflows.deletedAt, olderThan), notExists(stillNeeded)));
      if (candidates.length === 0) return 0;
      // The log's: one call per shard for every tombstone at once.
      const needed = await logs.unfinishedTriggers(
        environmentId,
        candidates.map((c) => [c.key, c.deletedAt?.getTime() ?? 0]),
      );
      const gone = candidates.filter((c) => !needed.has(`${c.deletedAt?.getTime() ?? 0}:${c.key}`)).map((c) => c.id);
      if (gone.length === 0) return 0;
      const rows = await db
        .delete(workflows)
        .where(and(eq(workflows.environmentId, environmentId), inArray(workflows.id, gone), notExists(stillNeeded)))
        .returning({ id: workflows.id });
      return rows.length;
    },
  };
}
