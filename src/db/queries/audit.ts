import { sql } from "drizzle-orm";
import type { Db } from "../client";
import { type AuditAction, type AuditResource, auditLog } from "../schema";
import type { Actor } from "../../env";
import { newId } from "../../lib/ids";

/** Who makes a request's changes and under which request id: what every entry records of the request. */
export interface AuditContext {
  actor: Actor;
  requestId: string | null;
  /** The caller's `X-Request-Id`, kept apart from Clarion's id. */
  clientRequestId: string | null;
  /** Set when the change applies a proposal: its entry names it. */
  proposalId?: string;
}

/** One change, its before and after already masked by the feature that knows its secrets. */
export interface AuditChange {
  environmentId: string;
  resource: AuditResource;
  resourceId: string;
  action: AuditAction;
  before: unknown;
  after: unknown;
}

/**
 * The entry's insert, to run in the change's own batch. By default it lands only when the
 * statement just before it changed a row (`changes()`), so an insert that met a conflict, or an
 * update that lost a race, records nothing; `always` for a change whose batch cannot half-happen.
 * The environment's slug is read in the same statement: entries outlive their environment.
 */
export function auditStatement(
  db: Db,
  context: AuditContext,
  change: AuditChange,
  when: "changed" | "always" = "changed",
  at = new Date(),
) {
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const { actor } = context;
  // Columns in the table's order, as drizzle names them for an INSERT ... SELECT.
  return db.insert(auditLog).select(
    sql`SELECT ${newId("aud")}, ${change.environmentId},
        coalesce((SELECT slug FROM environments WHERE id = ${change.environmentId}), ''), ${at.getTime()},
        ${actor.type}, ${actor.id}, ${actor.name}, ${change.resource}, ${change.resourceId}, ${change.action},
        ${json(change.before)}, ${json(change.after)}, ${context.requestId},
        ${context.clientRequestId}, ${context.proposalId ?? null}
      WHERE ${when === "always" ? sql`1` : sql`changes() > 0`}`,
  );
}
