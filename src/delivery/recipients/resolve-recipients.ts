import type { Db } from "../../db/client";
import type { TriggerRecord } from "../../jobs/trigger-record";
import { topicMemberIds } from "../../db/queries/topics";
import { environmentSubscriberIds } from "../../db/queries/subscribers";
import { isBroadcastRecipient, type Recipient } from "../../contract/recipients";

/** Topic members and broadcast audiences are read in pages, so 100,000 ids never load as one D1 result. */
const PAGE = 5_000;

type Page = (after: string | null, limit: number) => Promise<string[]>;

async function addPaged(ids: Set<string>, page: Page, excluded: ReadonlySet<string> = new Set()) {
  let after: string | null = null;
  for (;;) {
    const found = await page(after, PAGE);
    for (const id of found) if (!excluded.has(id)) ids.add(id);
    if (found.length < PAGE) return;
    after = found.at(-1)!;
  }
}

/** The subscriberIds a trigger goes to: named ones, inline ones, every member of its topics, or everyone for a broadcast. */
export async function resolveRecipientIds(db: Db, record: TriggerRecord): Promise<string[]> {
  const ids = new Set<string>();
  if (record.recipients.some(isBroadcastRecipient)) {
    await addPaged(ids, (after, limit) => environmentSubscriberIds(db, record.environmentId, after, limit));
    return [...ids];
  }
  const recipients = record.recipients as Recipient[];
  for (const r of recipients) {
    if (typeof r === "string") ids.add(r);
    else if (!("topic" in r)) ids.add(r.subscriberId);
  }
  for (const r of recipients) {
    if (typeof r === "string" || !("topic" in r)) continue;
    await addPaged(ids, (after, limit) => topicMemberIds(db, record.environmentId, r.topic, after, limit), new Set(r.exclude ?? []));
  }
  return [...ids];
}
