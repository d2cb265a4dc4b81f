import { deleteSubscriberNotifications } from "../../db/queries/in-app";
import { deleteSubscriberActivity } from "../../db/queries/subscriber-activity";
import { deleteSubscriberPresence } from "../../db/queries/inbox-presence";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import { subscriberMessages } from "../messages/log-rows";
import {
  messageEvents,
  messages,
  sandboxMessages,
  subscriberChannels,
  subscribers,
  suppressions,
  topicMembers,
  subscriberTenantPreferences,
  triggers,
} from "../../db/schema";
import type { SubscriberPreferences } from "../../contract/preferences";
import { answersMentioning, replaceAnswerBody } from "../../db/queries/idempotency";
import { environmentKeyScope } from "../../lib/idempotency-keys";
import { type EventRow, eventStatements } from "../../db/queries/events";
import { addressesOf } from "./addresses-repository";

/**
 * The D1 half of an erasure, one batch: the profile, channel addresses, topic memberships, Inbox
 * and timeline removed; their messages, triggers and stored replays redacted; `event` written with it.
 * `logged` is what the log's erasure (done first) answered: its messages' triggers and sandbox
 * captures are D1's to redact and delete here too.
 */
export async function eraseRecords(db: Db, environmentId: string, subscriberId: string, event: EventRow, logged: LoggedErasure) {
  const theirMessages = db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.environmentId, environmentId), eq(messages.subscriberId, subscriberId)));
  // One bound JSON list: a subscriber's log may name thousands, past D1's 100 parameters.
  const loggedMessages = sql`(SELECT value FROM json_each(${JSON.stringify(logged.messageIds)}))`;
  const { normalised: addresses, raw } = await addressesOf(db, environmentId, subscriberId);
  const replays = await redactedReplays(db, environmentId, subscriberId, raw);
  const [channels, topics, , , , redacted, lifted, profile] = await db.batch([
    db
      .delete(subscriberChannels)
      .where(and(eq(subscriberChannels.environmentId, environmentId), eq(subscriberChannels.subscriberId, subscriberId)))
      .returning({ channel: subscriberChannels.channel }),
    db
      .delete(topicMembers)
      .where(and(eq(topicMembers.environmentId, environmentId), eq(topicMembers.subscriberId, subscriberId)))
      .returning({ topic: topicMembers.topicKey }),
    // Provider reports, click targets and error texts may quote the address: the events keep only status and time.
    db
      .update(messageEvents)
      .set({ detail: null })
      .where(and(eq(messageEvents.environmentId, environmentId), inArray(messageEvents.messageId, theirMessages))),
    db
      .delete(sandboxMessages)
      .where(
        and(
          eq(sandboxMessages.environmentId, environmentId),
          or(inArray(sandboxMessages.messageId, theirMessages), sql`${sandboxMessages.messageId} IN ${loggedMessages}`),
        ),
      ),
    triggersRedacted(db, environmentId, subscriberId, logged.transactionIds),
    db
      .update(messages)
      .set({ to: null, subject: null, preview: null, content: null, errorMessage: null })
      .where(and(eq(messages.environmentId, environmentId), eq(messages.subscriberId, subscriberId)))
      .returning({ id: messages.id }),
    // The suppression list would otherwise still show their addresses; a new profile with the
    // same address is a new consent, and a dead address is suppressed again by its next bounce.
    db
      .delete(suppressions)
      .where(and(eq(suppressions.environmentId, environmentId), inArray(suppressions.address, addresses.length ? addresses : [""])))
      .returning({ address: suppressions.address }),
    db
      .delete(subscribers)
      .where(and(eq(subscribers.environmentId, environmentId), eq(subscribers.subscriberId, subscriberId)))
      .returning({ preferences: subscribers.preferences }),
    // Their Inbox goes with them: the in-app notifications hold the rendered content.
    deleteSubscriberNotifications(db, environmentId, subscriberId),
    deleteSubscriberPresence(db, environmentId, subscriberId),
    // Their timeline: what they changed, and when.
    deleteSubscriberActivity(db, environmentId, subscriberId),
    // Their preferences inside each tenant.
    db
      .delete(subscriberTenantPreferences)
      .where(and(eq(subscriberTenantPreferences.environmentId, environmentId), eq(subscriberTenantPreferences.subscriberId, subscriberId))),
    ...replays,
    // `subscriber.deleted`, written with the erasure it reports.
    ...eventStatements(db, [event]),
  ]);
  return {
    channels: channels.length,
    preferences: preferenceCount(profile[0]?.preferences ?? null),
    topics: topics.length,
    messagesRedacted: redacted.length + logged.redacted,
    suppressions: lifted.length,
  };
}

/**
 * A trigger D1 recorded before the log took them that named them inline keeps only their
 * subscriberId, in `to` and as `actor`: also one that sent them nothing (they were only its
 * actor, or every step skipped them). The log's records were redacted by `eraseLogged`.
 */
function triggersRedacted(db: Db, environmentId: string, subscriberId: string, loggedTransactionIds: string[]) {
  const theirTriggers = db
    .select({ tx: messages.transactionId })
    .from(messages)
    .where(and(eq(messages.environmentId, environmentId), eq(messages.subscriberId, subscriberId)));
  // One bound JSON list: a subscriber's log may name thousands, past D1's 100 parameters.
  const loggedTriggers = sql`(SELECT value FROM json_each(${JSON.stringify(loggedTransactionIds)}))`;
  const subscriberJson = JSON.stringify(subscriberId);
  // json_extract is only ever applied to an object (a bare id is not JSON text): CASE, not AND, guarantees the order.
  const actorIsThem = sql`(CASE WHEN json_type(${triggers.actor}) = 'object' THEN json_extract(${triggers.actor}, '$.subscriberId') END) = ${subscriberId}`;
  const namedInline = sql`EXISTS (SELECT 1 FROM json_each(${triggers.recipients}) AS r WHERE (CASE WHEN r.type = 'object' THEN json_extract(r.value, '$.subscriberId') END) = ${subscriberId})`;
  return db
    .update(triggers)
    .set({
      // Nested CASEs: json_extract is only ever applied to an object (a bare id is not JSON text).
      recipients: sql`(SELECT json_group_array(CASE r.type WHEN 'object' THEN (CASE WHEN json_extract(r.value, '$.subscriberId') = ${subscriberId} THEN ${subscriberId} ELSE json(r.value) END) WHEN 'array' THEN json(r.value) ELSE r.value END) FROM json_each(${triggers.recipients}) AS r)`,
      actor: sql`CASE WHEN json_type(${triggers.actor}) = 'object' THEN (CASE WHEN json_extract(${triggers.actor}, '$.subscriberId') = ${subscriberId} THEN ${subscriberJson} ELSE ${triggers.actor} END) ELSE ${triggers.actor} END`,
    })
    .where(
      and(
        eq(triggers.environmentId, environmentId),
        or(inArray(triggers.transactionId, theirTriggers), sql`${triggers.transactionId} IN ${loggedTriggers}`, actorIsThem, namedInline),
      ),
    );
}

/** What erasing a subscriber's log messages answered, and the ids of those messages. */
export interface LoggedErasure {
  redacted: number;
  transactionIds: string[];
  messageIds: string[];
}

/**
 * Their log messages redacted, in their one partition's shards (not by scanning all), and the log's
 * trigger records that named them (each shard asked once: a trigger lives in its own partition).
 */
export async function eraseLogged(logs: LogStore, environmentId: string, subscriberId: string): Promise<LoggedErasure> {
  // Their ids first, for the sandbox captures D1 holds of them: every one, however old.
  const theirs = await subscriberMessages(logs, environmentId, subscriberId, undefined, Number.POSITIVE_INFINITY);
  const { redacted, transactionIds } = await logs.eraseSubscriber(environmentId, subscriberId);
  // The log's trigger records: those of their messages, and those that quote them inline or as
  // actor while sending them nothing, found by each shard's index of people a trigger quotes.
  await logs.eraseTriggerSubject(environmentId, subscriberId, transactionIds);
  return { redacted, transactionIds, messageIds: theirs.map((m) => m.id) };
}

/**
 * Stored `Idempotency-Key` answers that show the subscriber (a replayed `POST /sub` would give the
 * erased email and name back): each object about them keeps only their subscriberId, and each of
 * their addresses becomes null. The key keeps answering, so a retry does not create them again.
 */
async function redactedReplays(db: Db, environmentId: string, subscriberId: string, addresses: string[]): Promise<BatchItem<"sqlite">[]> {
  const scope = environmentKeyScope(environmentId);
  const theirs = new Set(addresses);
  const redact = (value: unknown): unknown => {
    if (typeof value === "string") return theirs.has(value) ? null : value;
    if (Array.isArray(value)) return value.map(redact);
    if (typeof value !== "object" || value === null) return value;
    const entries = Object.entries(value);
    if (entries.some(([k, v]) => k === "subscriberId" && v === subscriberId)) return { subscriberId };
    return Object.fromEntries(entries.map(([k, v]) => [k, redact(v)]));
  };
  const needles = [subscriberId, ...addresses].map((s) => JSON.stringify(s));
  const rows = await answersMentioning(db, scope, needles);
  return rows.flatMap(({ key, body }) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [];
    }
    const redacted = JSON.stringify(redact(parsed));
    return redacted === body ? [] : [replaceAnswerBody(db, scope, key, redacted)];
  });
}

/** Stored preference settings: channel flags, per-workflow overrides, quiet hours and the delivery schedule. */
function preferenceCount(prefs: SubscriberPreferences | null): number {
  if (!prefs) return 0;
  return (
    Object.keys(prefs.channels ?? {}).length +
    Object.keys(prefs.workflows ?? {}).length +
    (prefs.quietHours ? 1 : 0) +
    (prefs.schedule ? 1 : 0)
  );
}
