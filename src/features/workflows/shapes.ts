import type { Actor } from "../../env";
import type { AuditAction, WorkflowDefinition, workflows } from "../../db/schema";
import type { Workflow, WorkflowInput } from "./schemas";

type Row = typeof workflows.$inferSelect;

export const toWorkflow = (row: Row): Workflow => ({
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

/** The columns a save writes: everything but the key, which a workflow keeps for life. */
export const columnsOf = (input: WorkflowInput) => ({
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

/** A save without `If-Match` that loses a race reads the workflow again and retries, at most this often. */
export const RACE_RETRIES = 5;
