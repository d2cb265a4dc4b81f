import { and, eq } from "drizzle-orm";
import type { AuditAction } from "../../db/schema";
import { workflows } from "../../db/schema";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { newId } from "../../lib/ids";
import { forgetGate } from "./gate-cache";
import type { Workflow, WorkflowInput } from "./schemas";
import type { WorkflowScope } from "./scope-repository";
import { columnsOf as columns, definitionOf, RACE_RETRIES, toWorkflow, type WriteOutcome, type WriteRecord } from "./shapes";
import { summarise, versionChanges } from "./versions/changes";
import { insertVersion, type VersionAction } from "./versions/repository";

/** What an update did, for the audit log: the version's own action, or (de)activation when that is all it changed. */
const auditActionOf = (action: VersionAction, summary: string): AuditAction =>
  action !== "updated" ? action : summary === "Activated" ? "activated" : summary === "Deactivated" ? "deactivated" : "updated";

/** The statements of a workflow's create and update, for a save and for a caller that batches many (a push). */
function workflowStatements({ db, environmentId, byKey }: Pick<WorkflowScope, "db" | "environmentId" | "byKey">) {
  /** A create's statements: the row (none when the key is taken), its version 1 and its audit entry. */
  const createStatements = (input: WorkflowInput, context: AuditContext, record: WriteRecord, now: Date) => {
    const id = newId("wf");
    const definition = definitionOf(input);
    const actor = record.author ?? context.actor;
    const audited = { environmentId, resource: "workflow", resourceId: input.key } as const;
    return [
      db
        .insert(workflows)
        // 0, not NULL: a workflow made now has no triggers in the log, so the list need not ask it (see reads-repository.ts).
        .values({
          id,
          environmentId,
          key: input.key,
          ...columns(input),
          version: 1,
          createdAt: now,
          updatedAt: now,
          lastTriggeredAt: new Date(0),
        })
        .onConflictDoNothing()
        .returning(),
      insertVersion(db, environmentId, { workflowId: id, version: 1, definition, action: "created", actor, summary: "Created", at: now }),
      auditStatement(db, context, { ...audited, action: record.auditAction ?? "created", before: null, after: definition }),
    ] as const;
  };

  /** An update's statements: the row moved from the version read (nothing lands otherwise), the version row, the audit entry. */
  const updateStatements = (
    current: Workflow,
    input: WorkflowInput,
    context: AuditContext,
    w: { action?: VersionAction; summary?: string } & WriteRecord,
    now: Date,
  ) => {
    const before = definitionOf(current);
    const definition = definitionOf(input);
    const version = current.version + 1;
    const summary = w.summary ?? summarise(versionChanges(before, definition), definition);
    const action = w.action ?? "updated";
    return [
      db
        .update(workflows)
        .set({ ...columns(input), version, updatedAt: now })
        .where(and(byKey(current.key), eq(workflows.id, current.id), eq(workflows.version, current.version)))
        .returning(),
      insertVersion(db, environmentId, {
        workflowId: current.id,
        version,
        definition,
        action,
        actor: w.author ?? context.actor,
        summary,
        at: now,
      }),
      auditStatement(db, context, {
        environmentId,
        resource: "workflow",
        resourceId: current.key,
        action: w.auditAction ?? auditActionOf(action, summary),
        before,
        after: definition,
      }),
    ] as const;
  };

  return { createStatements, updateStatements };
}

/** Saving workflows: a create is version 1, an update the next version, each with its audit entry in the same batch. */
export function workflowSaves({ db, environmentId, byKey, find }: WorkflowScope) {
  const { createStatements, updateStatements } = workflowStatements({ db, environmentId, byKey });

  return {
    createStatements,
    updateStatements,
    /** Returns null when the key is already taken. The workflow and its version 1 go in one batch. */
    async create(input: WorkflowInput, context: AuditContext, record: WriteRecord = {}, now = new Date()): Promise<Workflow | null> {
      const [[row]] = await db.batch(createStatements(input, context, record, now));
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
        if (versionChanges(definitionOf(current), definitionOf(input)).length === 0) return { status: "ok", value: current };
        const [[row]] = await db.batch(updateStatements(current, input, context, options, now));
        forgetGate(environmentId, key);
        if (row) return { status: "ok", value: toWorkflow(row) };
        if (options.ifMatch || attempt >= RACE_RETRIES) return { status: "stale", current: current.version + 1 };
      }
    },
  };
}
