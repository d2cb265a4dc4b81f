import { and, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { Db } from "../client";
import { bound } from "../batch";
import { packedRow, unpackedRow } from "../json-rows";
import { messages, type subscriberChannels, subscribers, workflows, workflowVersions } from "../schema";
import type { Step } from "../../engine/steps";
import type { UnsubscribeScope } from "../../contract/unsubscribe";

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

/** A channel row as `recipientRowsRead` packs it: channel, provider, address, created_at (ms). */
type PackedChannel = [ChannelRow["channel"], string, string, number];

const SUBSCRIBER_COLUMNS = Object.keys(getTableColumns(subscribers)).length;

const OWN_CHANNELS = `from subscriber_channels as c where c.environment_id = s.environment_id and c.subscriber_id = s.subscriber_id`;

/**
 * Bound: the environment, the workflow ids, the environment, the subscriber ids. One row per
 * subscriber (never one JSON value for all: a value over D1's 2 MB would fail the read, and
 * subscribers' custom data has no smaller bound), each row also naming the workflows found; the
 * left join answers that one row even when no subscriber is there.
 */
const RECIPIENTS = `select wf.workflows as workflows, rs.r as r from
  (select json_group_array(w.id) as workflows from workflows as w where w.environment_id = ? and w.id in (select value from json_each(?))) as wf
  left join (select json_insert(${packedRow(subscribers, "s")},
      '$[#]', json((select json_group_array(json_array(c.channel, c.provider, c.address, c.created_at)) ${OWN_CHANNELS})),
      '$[#]', json((select json_group_array(x.address) from suppressions as x where x.environment_id = s.environment_id
        and x.address in (select lower(s.email) union all select s.phone union all select c.address ${OWN_CHANNELS})))) as r
    from subscribers as s where s.environment_id = ? and s.subscriber_id in (select value from json_each(?))) as rs on true`;

/**
 * The subscribers, each with its channels and its suppressed addresses (its email lower-cased,
 * its phone, its push and chat addresses: as the list stores them), and which of `workflowIds`
 * still have their row (live or a tombstone), in ONE statement for any number of ids: each list
 * is one bound parameter, and channels and suppressions come as JSON lists of correlated
 * subqueries, each an index seek per subscriber. A recipient without a subscriber row gets no
 * addresses: it is stopped before any send (recipients-state.ts).
 */
export function recipientRowsRead(db: Db, environmentId: string, subscriberIds: readonly string[], workflowIds: readonly string[] = []) {
  return bound(db.$client, RECIPIENTS, [environmentId, JSON.stringify(workflowIds), environmentId, JSON.stringify(subscriberIds)]);
}

/** What `recipientRowsRead` answered (its D1Result), as the rows the phases read and the workflows whose row is there. */
export function recipientRows(result: unknown) {
  const answered = (result as D1Result<{ workflows: string; r: string | null }>).results;
  const subscriberRows: SubscriberRow[] = [];
  const channels: ChannelRow[] = [];
  const suppressed: string[] = [];
  for (const { r } of answered) {
    if (r === null) continue;
    const values = JSON.parse(r) as unknown[];
    const row = unpackedRow(subscribers, values);
    subscriberRows.push(row);
    const own = values[SUBSCRIBER_COLUMNS] as PackedChannel[];
    for (const [channel, provider, address, createdAt] of own)
      channels.push({
        environmentId: row.environmentId,
        subscriberId: row.subscriberId,
        channel,
        provider,
        address,
        createdAt: new Date(createdAt),
      });
    suppressed.push(...(values[SUBSCRIBER_COLUMNS + 1] as string[]));
  }
  return { subscribers: subscriberRows, channels, suppressed, workflows: new Set(JSON.parse(answered[0]?.workflows ?? "[]") as string[]) };
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
