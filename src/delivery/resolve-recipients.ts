import type { Db } from "../db/client";
import type { TriggerRecord } from "./trigger-record";
import { topicMemberIds } from "../db/queries/topics";
import type { Recipient } from "../contract/recipients";

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
    let after: string | null = null;
    for (;;) {
      const page = await topicMemberIds(db, record.environmentId, r.topic, after, PAGE);
      for (const id of page) if (!excluded.has(id)) ids.add(id);
      if (page.length < PAGE) break;
      after = page.at(-1)!;
    }
  }
  return [...ids];
}
