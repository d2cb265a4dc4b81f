import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import { environments } from "../../db/schema";
import { workflowsRepository } from "./repository";

/**
 * A tombstone is kept a day after the delete even when nothing runs it any more: a replay of an
 * accepted trigger within the idempotency window (24 h) must still find what it was accepted for.
 */
export const TOMBSTONE_KEEP_HOURS = 24;

/** Retention's share for workflows: every environment's tombstones that no unfinished trigger needs. */
export async function purgeWorkflowTombstones(db: Db, logs: LogStore, now: Date): Promise<number> {
  const olderThan = new Date(now.getTime() - TOMBSTONE_KEEP_HOURS * 3_600_000);
  let purged = 0;
  for (const { id } of await db.select({ id: environments.id }).from(environments)) {
    purged += await workflowsRepository(db, id, logs).purgeDeletedWorkflows(olderThan);
  }
  return purged;
}
