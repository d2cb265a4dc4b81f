// The subscriber timeline: rows written in the batch of the change they record, read back merged
// with the suppressions of the subscriber's addresses.
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { PreferenceChangeReason } from "../../contract/subscriber-activity";
import type { SuppressionReason } from "../../contract/suppressions";
import { newId } from "../../lib/ids";
import type { Db } from "../client";
import type { PreferenceChange, SubscriberPreferences } from "../../contract/preferences";
import { analyticsOptOuts, events, subscriberActivity, subscribers } from "../schema";

const HOUR_MS = 3_600_000;

/** The channel flags a change turned off: each (workflow, channel), the workflow empty for a global flag. */
export function optOutsOf(changed: PreferenceChange): { workflow: string; channel: string }[] {
  const global = Object.entries(changed.channels ?? {}).flatMap(([channel, on]) => (on === false ? [{ workflow: "", channel }] : []));
  const perWorkflow = Object.entries(changed.workflows ?? {}).flatMap(([workflow, flags]) =>
    Object.entries(flags ?? {}).flatMap(([channel, on]) => (on === false ? [{ workflow, channel }] : [])),
  );
  return [...global, ...perWorkflow];
}

/**
 * A preference change as one batch: the timeline row and `subscriber.updated`, then the new
 * preferences, all on condition that the stored preferences are still `before` (the raw JSON text
 * read a moment ago). A concurrent change makes all three do nothing, and the caller reads again:
 * the recorded change is exactly the one applied.
 */
export function preferenceChangeStatements(
  db: Db,
  target: { environmentId: string; subscriberId: string },
  change: { before: string | null; after: SubscriberPreferences; changed: PreferenceChange; reason: PreferenceChangeReason },
  now: Date,
) {
  const { environmentId, subscriberId } = target;
  const unchanged = sql`EXISTS (SELECT 1 FROM subscribers WHERE environment_id = ${environmentId} AND subscriber_id = ${subscriberId} AND preferences IS ${change.before})`;
  const eventId = newId("evt");
  const data = JSON.stringify({ subscriberId, reason: change.reason, preferences: change.changed });
  const statements = [
    // Columns in the tables' order: id, environment_id, subscriber_id, type, reason, preferences, created_at.
    db
      .insert(subscriberActivity)
      .select(
        sql`SELECT ${newId("act")}, ${environmentId}, ${subscriberId}, 'preferences_changed', ${change.reason}, ${JSON.stringify(change.changed)}, ${now.getTime()} WHERE ${unchanged}`,
      ),
    // id, environment_id, type, data, created_at, dispatched_at.
    db
      .insert(events)
      .select(sql`SELECT ${eventId}, ${environmentId}, 'subscriber.updated', ${data}, ${now.getTime()}, NULL WHERE ${unchanged}`),
    // The analytics' opt-out counts, before the update (which makes `unchanged` false).
    // Columns in the table's order: environment_id, hour, workflow, channel, reason, n.
    db
      .insert(analyticsOptOuts)
      .select(
        sql`SELECT ${environmentId}, ${Math.floor(now.getTime() / HOUR_MS) * HOUR_MS}, json_extract(value, '$.workflow'), json_extract(value, '$.channel'), ${change.reason}, 1
          FROM json_each(${JSON.stringify(optOutsOf(change.changed))}) WHERE ${unchanged}`,
      )
      .onConflictDoUpdate({
        target: [
          analyticsOptOuts.environmentId,
          analyticsOptOuts.hour,
          analyticsOptOuts.workflow,
          analyticsOptOuts.channel,
          analyticsOptOuts.reason,
        ],
        set: { n: sql`${analyticsOptOuts.n} + 1` },
      }),
    db
      .update(subscribers)
      .set({ preferences: change.after, updatedAt: now })
      .where(
        and(
          eq(subscribers.environmentId, environmentId),
          eq(subscribers.subscriberId, subscriberId),
          sql`${subscribers.preferences} IS ${change.before}`,
        ),
      )
      .returning({ preferences: subscribers.preferences }),
  ] as const;
  return { statements, eventId };
}

/** `created` or `updated` for each upserted subscriber, decided as `subscriberChangeEvents` decides: run after the upserts in their batch. */
export function subscriberUpsertActivity(
  db: Db,
  environmentId: string,
  subscriberIds: readonly string[],
  now: Date,
  reason: PreferenceChangeReason | null = null,
) {
  const pairs = subscriberIds.map((subscriberId) => [newId("act"), subscriberId]);
  return db.insert(subscriberActivity).select(sql`
    SELECT json_extract(p.value, '$[0]'), ${environmentId}, s.subscriber_id,
      CASE WHEN s.created_at = s.updated_at THEN 'created' ELSE 'updated' END, ${reason}, NULL, ${now.getTime()}
    FROM json_each(${JSON.stringify(pairs)}) AS p
    -- CROSS JOIN keeps the list as the outer loop: each key is one index lookup (test/subscribers/json-list-joins.test.ts)
    CROSS JOIN subscribers AS s ON s.environment_id = ${environmentId} AND s.subscriber_id = json_extract(p.value, '$[1]')`);
}

export const deleteSubscriberActivity = (db: Db, environmentId: string, subscriberId: string) =>
  db
    .delete(subscriberActivity)
    .where(and(eq(subscriberActivity.environmentId, environmentId), eq(subscriberActivity.subscriberId, subscriberId)));

export interface ActivityRow {
  id: string;
  type: "created" | "updated" | "preferences_changed" | "suppressed";
  reason: PreferenceChangeReason | SuppressionReason | null;
  channel: string | null;
  preferences: string | null;
  created_at: number;
}

/**
 * One page of the timeline, newest first, after the `(createdAt, id)` of the previous page's
 * last entry. Suppressions are not copied into the timeline: they are read from the list by the
 * subscriber's addresses (normalised), so a lifted suppression leaves it too.
 */
export function activityPage(
  db: Db,
  scope: { environmentId: string; subscriberId: string; addresses: readonly string[] },
  after: { createdAt: number; id: string } | null,
  limit: number,
) {
  const { environmentId, subscriberId, addresses } = scope;
  const before: SQL = after ? sql`WHERE (created_at, id) < (${after.createdAt}, ${after.id})` : sql``;
  return db.all<ActivityRow>(sql`
    SELECT id, type, reason, channel, preferences, created_at FROM (
      SELECT id, type, reason, NULL AS channel, preferences, created_at
      FROM subscriber_activity WHERE environment_id = ${environmentId} AND subscriber_id = ${subscriberId}
      UNION ALL
      SELECT 'sup_' || rowid, 'suppressed', reason, channel, NULL, created_at
      FROM suppressions WHERE environment_id = ${environmentId} AND address IN (SELECT value FROM json_each(${JSON.stringify(addresses)}))
    ) ${before}
    ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`);
}
