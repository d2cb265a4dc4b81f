import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { topicMembers } from "../db/schema";
import type { TriggerRecord } from "../durable-objects/trigger-object";
import type { Recipient } from "../features/triggers/schemas";

/** The subscriberIds a trigger goes to: named ones, inline ones, and every member of its topics. */
export async function resolveRecipientIds(db: Db, record: TriggerRecord): Promise<string[]> {
  const recipients = record.recipients as Recipient[];
  const ids = new Set<string>();
  const topics: { topic: string; exclude?: string[] }[] = [];
  for (const r of recipients) {
    if (typeof r === "string") ids.add(r);
    else if ("topic" in r) topics.push(r);
    else ids.add(r.subscriberId);
  }
  if (topics.length) {
    const members = await db
      .select({ topicKey: topicMembers.topicKey, subscriberId: topicMembers.subscriberId })
      .from(topicMembers)
      .where(and(eq(topicMembers.environmentId, record.environmentId), inArray(topicMembers.topicKey, topics.map((t) => t.topic))));
    for (const t of topics) {
      const excluded = new Set(t.exclude ?? []);
      for (const m of members) if (m.topicKey === t.topic && !excluded.has(m.subscriberId)) ids.add(m.subscriberId);
    }
  }
  return [...ids];
}
