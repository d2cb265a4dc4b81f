import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chunk } from "../batch";
import type { Db } from "../client";
import { inboxPresence } from "../schema";

/** Subscriber ids per presence read: with the environment id, one statement's 100 bound parameters. */
const IDS_PER_STATEMENT = 99;

/**
 * Which of these subscribers have an open Inbox socket: statements to run in the same D1 batch
 * as the write that needs the answer (no round trip of their own). Each answers `{subscriberId}[]`.
 */
export const presentAmong = (db: Db, environmentId: string, subscriberIds: readonly string[]): BatchItem<"sqlite">[] =>
  chunk([...new Set(subscriberIds)], IDS_PER_STATEMENT).map((ids) =>
    db
      .select({ subscriberId: inboxPresence.subscriberId })
      .from(inboxPresence)
      .where(and(eq(inboxPresence.environmentId, environmentId), inArray(inboxPresence.subscriberId, ids))),
  );

/** Subscribers of an environment with an open Inbox socket, at most `limit` (the primary key's order). */
export async function presentSubscribers(db: Db, environmentId: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ subscriberId: inboxPresence.subscriberId })
    .from(inboxPresence)
    .where(eq(inboxPresence.environmentId, environmentId))
    .limit(limit);
  return rows.map((r) => r.subscriberId);
}

export const deleteSubscriberPresence = (db: Db, environmentId: string, subscriberId: string) =>
  db.delete(inboxPresence).where(and(eq(inboxPresence.environmentId, environmentId), eq(inboxPresence.subscriberId, subscriberId)));

/** Records a subscriber's open sockets as counted by their object; none removes the record. */
export async function setPresence(db: Db, environmentId: string, subscriberId: string, sockets: number, now = new Date()): Promise<void> {
  if (sockets > 0) {
    await db
      .insert(inboxPresence)
      .values({ environmentId, subscriberId, sockets, updatedAt: now })
      .onConflictDoUpdate({ target: [inboxPresence.environmentId, inboxPresence.subscriberId], set: { sockets, updatedAt: now } });
  } else {
    await deleteSubscriberPresence(db, environmentId, subscriberId);
  }
}
