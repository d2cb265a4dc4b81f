import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { inJsonList } from "../batch";
import { messages, subscriberChannels, subscribers, workflows, workflowVersions } from "../schema";
import type { Step } from "../../engine/steps";
import type { UnsubscribeScope } from "../../contract/unsubscribe";
import { suppressedAddressRead } from "./suppressions";

/** What delivery needs of a trigger's workflow. */
export type WorkflowRow = Pick<typeof workflows.$inferSelect, "key" | "name" | "critical" | "unsubscribe" | "tags" | "steps">;
export type SubscriberRow = typeof subscribers.$inferSelect;
export type ChannelRow = typeof subscriberChannels.$inferSelect;

/** How a trigger names its workflow: by the id and version it was accepted with, or (older records) by a live key. */
export interface WorkflowRef {
  workflowKey: string;
  workflowId?: string | undefined;
  workflowVersion?: number | undefined;
}

/** Triggers naming the same workflow version share one read of it. */
export const workflowRefKey = (ref: WorkflowRef) =>
  ref.workflowId && ref.workflowVersion ? `v:${ref.workflowId}:${ref.workflowVersion}` : `k:${ref.workflowId ?? ""}:${ref.workflowKey}`;

/** The trigger's workflow, deleted or not, by the id it was accepted with; older records name only a live key. */
const workflowOf = (ref: WorkflowRef) =>
  ref.workflowId ? eq(workflows.id, ref.workflowId) : and(eq(workflows.key, ref.workflowKey), isNull(workflows.deletedAt));

/**
 * The workflow's content as the trigger was accepted: its version when the record names one (the
 * same single read, from the versions), else the row, deleted or not.
 */
export function workflowRead(db: Db, environmentId: string, ref: WorkflowRef) {
  if (ref.workflowId && ref.workflowVersion) {
    const definition = workflowVersions.definition;
    return (
      db
        .select({
          key: workflowVersions.workflowKey,
          name: sql<string>`json_extract(${definition}, '$.name')`,
          critical: sql<boolean>`json_extract(${definition}, '$.critical')`.mapWith(Boolean),
          unsubscribe: sql<UnsubscribeScope>`json_extract(${definition}, '$.unsubscribe')`,
          tags: sql<string[]>`json_extract(${definition}, '$.tags')`.mapWith((v: string) => JSON.parse(v) as string[]),
          steps: sql<Step[]>`json_extract(${definition}, '$.steps')`.mapWith((v: string) => JSON.parse(v) as Step[]),
        })
        .from(workflowVersions)
        // The row must still be there (live or a tombstone): a purged workflow fails its runs, as before versions.
        .innerJoin(workflows, eq(workflows.id, workflowVersions.workflowId))
        .where(
          and(
            eq(workflowVersions.environmentId, environmentId),
            eq(workflowVersions.workflowId, ref.workflowId),
            eq(workflowVersions.version, ref.workflowVersion),
          ),
        )
        .limit(1)
    );
  }
  return db
    .select({
      key: workflows.key,
      name: workflows.name,
      critical: workflows.critical,
      unsubscribe: workflows.unsubscribe,
      tags: workflows.tags,
      steps: workflows.steps,
    })
    .from(workflows)
    .where(and(eq(workflows.environmentId, environmentId), workflowOf(ref)))
    .limit(1);
}

/**
 * The subscribers and their channels, and their suppressed addresses: three reads for any number
 * of recipient chunks of one environment. Each list is one bound parameter, so the reads stay
 * within D1's 100 whatever the number of ids.
 */
export function recipientRowReads(db: Db, environmentId: string, subscriberIds: readonly string[]) {
  const ids = inJsonList(subscriberIds);
  return [
    db
      .select()
      .from(subscribers)
      .where(and(eq(subscribers.environmentId, environmentId), sql`${subscribers.subscriberId} in ${ids}`)),
    db
      .select()
      .from(subscriberChannels)
      .where(and(eq(subscriberChannels.environmentId, environmentId), sql`${subscriberChannels.subscriberId} in ${ids}`)),
    suppressedAddressRead(db, environmentId, subscriberIds),
  ] as const;
}

/**
 * The messages D1 still holds of the given (transaction, subscriber) pairs, one index seek per
 * pair: only triggers accepted before the message log moved to the log shards have any.
 */
export function legacyMessageRead(
  db: Db,
  environmentId: string,
  pairs: readonly (readonly [transactionId: string, subscriberId: string])[],
) {
  return db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.environmentId, environmentId),
        sql`(${messages.transactionId}, ${messages.subscriberId}) in (select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(${JSON.stringify(pairs)}))`,
      ),
    );
}
