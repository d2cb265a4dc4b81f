import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type ChatAddress, chatAddressValue, type SubscriberInput } from "../../contract/recipients";
import { subscriberChangeEvents } from "./events";
import { subscriberUpsertActivity } from "./subscriber-activity";
import { chunk, rowsPerStatement, runBatch } from "../batch";
import type { Db } from "../client";
import { type ChannelAddressKind, events, subscriberActivity, subscriberChannels, subscribers } from "../schema";
import { newId } from "../../lib/ids";
import type { PreferenceChangeReason } from "../../contract/subscriber-activity";

// Subscriber upserts: `/sub` and `/sub/bulk` run them, and so does the queue consumer for the
// subscribers a trigger names inline.

export const PROFILE_FIELDS = ["email", "phone", "firstName", "lastName", "avatar", "locale", "timezone", "data"] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** A subscriber's profile without channel addresses: what a browser may name (the Inbox session). */
export type SubscriberProfile = Pick<SubscriberInput, "subscriberId" | ProfileField>;

const COLUMN_BY_FIELD: Record<ProfileField, string> = {
  email: "email",
  phone: "phone",
  firstName: "first_name",
  lastName: "last_name",
  avatar: "avatar",
  locale: "locale",
  timezone: "timezone",
  data: "data",
};

/** Rows per upsert statement: they are one JSON parameter, far below D1's statement and value limits. */
const ROWS_PER_JSON_UPSERT = 500;

export interface UpsertOutcome {
  subscriberId: string;
  created: boolean;
}

/**
 * Upserts many subscribers in one D1 batch. Only the fields each input names are written, so
 * omitted fields keep their value; inputs are grouped by the fields they name so that rows
 * of one shape share multi-row statements within D1's bound-parameter limit.
 */
export async function upsertSubscribers(
  db: Db,
  environmentId: string,
  inputs: readonly SubscriberInput[],
  now = new Date(),
  reason: PreferenceChangeReason | null = null,
) {
  const { statements, upsertCount } = subscriberWrites(db, environmentId, inputs, now);
  const ids = [...new Set(inputs.map((i) => i.subscriberId))];
  const changes = subscriberChangeEvents(db, environmentId, ids, now, reason);
  const recorded = inputs.length ? [changes.statement, subscriberUpsertActivity(db, environmentId, ids, now, reason)] : [];
  const results = await runBatch(db, [...statements, ...recorded]);
  return { outcomes: collectOutcomes(results.slice(0, upsertCount)), eventIds: inputs.length ? changes.eventIds : [] };
}

export function subscriberWrites(db: Db, environmentId: string, inputs: readonly SubscriberInput[], now: Date) {
  const groups = new Map<string, SubscriberInput[]>();
  for (const input of inputs) {
    const shape = PROFILE_FIELDS.filter((f) => input[f] !== undefined).join(",");
    const group = groups.get(shape);
    if (group) group.push(input);
    else groups.set(shape, [input]);
  }

  const upserts: BatchItem<"sqlite">[] = [];
  for (const [shape, group] of groups) {
    const fields = shape ? (shape.split(",") as ProfileField[]) : [];
    const set: Record<string, ReturnType<typeof sql>> = { updatedAt: sql.raw("excluded.updated_at") };
    for (const f of fields) set[f] = sql.raw(`excluded.${COLUMN_BY_FIELD[f]}`);
    // The rows travel as ONE bound parameter (a JSON array read with json_each): D1's 100
    // parameters would otherwise allow 16 rows a statement, and a bulk trigger of 1,000 inline
    // subscribers cost some 60 statements instead of two.
    for (const rows of chunk(group, ROWS_PER_JSON_UPSERT)) {
      const values = JSON.stringify(rows.map((input) => [newId("sub"), input.subscriberId, ...fields.map((f) => input[f] ?? null)]));
      const column = (field: ProfileField) => {
        const at = fields.indexOf(field);
        return at < 0 ? sql`NULL` : sql.raw(`json_extract(r.value, '$[${at + 2}]')`);
      };
      upserts.push(
        db
          .insert(subscribers)
          // Every column in the table's order; a field this shape does not name is NULL in a new row and untouched in an existing one.
          .select(
            sql`SELECT json_extract(r.value, '$[0]'), ${environmentId}, json_extract(r.value, '$[1]'), ${sql.join(
              PROFILE_FIELDS.map(column),
              sql`, `,
            )}, NULL, ${now.getTime()}, ${now.getTime()} FROM json_each(${values}) AS r WHERE true`,
          )
          .onConflictDoUpdate({ target: [subscribers.environmentId, subscribers.subscriberId], set })
          .returning({ subscriberId: subscribers.subscriberId, createdAt: subscribers.createdAt, updatedAt: subscribers.updatedAt }),
      );
    }
  }
  return { statements: [...upserts, ...channelWrites(db, environmentId, inputs, now)], upsertCount: upserts.length };
}

/**
 * Creates `profile`'s subscriber only if there is none, in one batch: the timeline's `created` and
 * `subscriber.created` (both with `reason`) land only when this batch made the row, so a subscriber
 * made meanwhile by anyone else is neither changed nor reported. The event's id when it was created.
 */
export async function createSubscriberIfMissing(
  db: Db,
  environmentId: string,
  profile: SubscriberProfile,
  reason: PreferenceChangeReason,
  now = new Date(),
): Promise<string | null> {
  const id = newId("sub");
  const eventId = newId("evt");
  const { subscriberId } = profile;
  const fields = Object.fromEntries(PROFILE_FIELDS.filter((f) => profile[f] !== undefined).map((f) => [f, profile[f]]));
  const made = sql`EXISTS (SELECT 1 FROM subscribers WHERE id = ${id})`;
  const data = JSON.stringify({ subscriberId, reason });
  const [inserted] = await db.batch([
    db
      .insert(subscribers)
      .values({ id, environmentId, subscriberId, createdAt: now, updatedAt: now, ...fields })
      .onConflictDoNothing()
      .returning({ id: subscribers.id }),
    // Columns in the tables' order: id, environment_id, subscriber_id, type, reason, preferences, created_at.
    db
      .insert(subscriberActivity)
      .select(sql`SELECT ${newId("act")}, ${environmentId}, ${subscriberId}, 'created', ${reason}, NULL, ${now.getTime()} WHERE ${made}`),
    // id, environment_id, type, data, created_at, dispatched_at.
    db.insert(events).select(sql`SELECT ${eventId}, ${environmentId}, 'subscriber.created', ${data}, ${now.getTime()}, NULL WHERE ${made}`),
  ]);
  return inserted.length ? eventId : null;
}

function channelWrites(db: Db, environmentId: string, inputs: readonly SubscriberInput[], now: Date): BatchItem<"sqlite">[] {
  const writes: BatchItem<"sqlite">[] = [];
  const kinds: { kind: ChannelAddressKind; address: (item: { provider: string; token: string } | ChatAddress) => string }[] = [
    { kind: "push", address: (i) => ("token" in i ? i.token : "") },
    { kind: "chat", address: (i) => ("token" in i ? "" : chatAddressValue(i)) },
  ];
  for (const { kind, address } of kinds) {
    const replaced = inputs.filter((i) => i.channels?.[kind] !== undefined);
    if (replaced.length === 0) continue;
    for (const ids of chunk([...new Set(replaced.map((i) => i.subscriberId))], 90)) {
      writes.push(
        db
          .delete(subscriberChannels)
          .where(
            and(
              eq(subscriberChannels.environmentId, environmentId),
              eq(subscriberChannels.channel, kind),
              inArray(subscriberChannels.subscriberId, ids),
            ),
          ),
      );
    }
    const rows = replaced.flatMap((i) =>
      (i.channels?.[kind] ?? []).map((item) => ({
        environmentId,
        subscriberId: i.subscriberId,
        channel: kind,
        provider: item.provider,
        address: address(item),
        createdAt: now,
      })),
    );
    for (const part of chunk(rows, rowsPerStatement(6))) {
      writes.push(db.insert(subscriberChannels).values(part).onConflictDoNothing());
    }
  }
  return writes;
}

function collectOutcomes(results: unknown[]): UpsertOutcome[] {
  return results.flatMap((rows) =>
    (rows as { subscriberId: string; createdAt: Date; updatedAt: Date }[]).map((row) => ({
      subscriberId: row.subscriberId,
      created: row.createdAt.getTime() === row.updatedAt.getTime(),
    })),
  );
}

/**
 * One page of the environment's subscriberIds in order, after `after` (exclusive): a broadcast's
 * fan-out walks the unique (environment, subscriberId) index instead of loading every row.
 */
export async function environmentSubscriberIds(db: Db, environmentId: string, after: string | null, limit: number): Promise<string[]> {
  const rows = await db
    .select({ subscriberId: subscribers.subscriberId })
    .from(subscribers)
    .where(and(eq(subscribers.environmentId, environmentId), after !== null ? gt(subscribers.subscriberId, after) : undefined))
    .orderBy(asc(subscribers.subscriberId))
    .limit(limit);
  return rows.map((row) => row.subscriberId);
}
