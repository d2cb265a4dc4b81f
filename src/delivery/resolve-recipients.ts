import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../db/client";
import { topicMembers } from "../db/schema";
import type { TriggerRecord } from "../durable-objects/trigger-object";
import type { Recipient } from "../features/triggers/schemas";

/** Topic members are read in pages, so a 100,000-member topic never loads as one D1 result. */
const PAGE = 5_000;

/** The subscriberIds a trigger goes to: named ones, inline ones, and every member of its topics. */
export async function resolveRecipientIds(db: Db, record: TriggerRecord): Promise<string[]> {
  const recipients = record.recipients as Recipient[];
  const ids = new Set<string>();
  for (const r of recipients) {
    if (typeof r === "string") ids.add(r);
    else if (!("topic" in r)) ids.add(r.subscriberId);
  }
  for (const r of recipients) {
    if (typeof r === "string" || !("topic" in r)) continue;
    const excluded = new Set(r.exclude ?? []);
    let after = "";
    for (;;) {
      const page = await db
        .select({ subscriberId: topicMembers.subscriberId })
        .from(topicMembers)
        .where(and(eq(topicMembers.environmentId, record.environmentId), eq(topicMembers.topicKey, r.topic), gt(topicMembers.subscriberId, after)))
        .orderBy(asc(topicMembers.subscriberId))
        .limit(PAGE);
      for (const m of page) if (!excluded.has(m.subscriberId)) ids.add(m.subscriberId);
      if (page.length < PAGE) break;
      after = page.at(-1)!.subscriberId;
    }
  }
  return [...ids];
}
