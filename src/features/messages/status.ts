import { eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { runBatch } from "../../db/batch";
import { messages, type MessageStatus } from "../../db/schema";
import { MessageWrites } from "../../delivery/message-writes";

/**
 * How far along a message is. A later report never moves it back (an `opened` arriving
 * before `delivered` keeps `opened`); a bounce or failure overrides `sent` and `delivered`
 * but not an open or click that proves the message arrived.
 */
const RANK: Record<MessageStatus, number> = {
  queued: 0,
  sending: 1,
  sent: 2,
  delivered: 3,
  bounced: 3.5,
  failed: 3.5,
  undeliverable: 3.5,
  opened: 4,
  clicked: 5,
  skipped: 9,
  cancelled: 9,
};

export interface IncomingStatus {
  status: MessageStatus;
  at: Date;
  detail?: Record<string, unknown>;
}

/** Applies status reports to messages found by id; every report is kept in the event log. */
export async function applyStatuses(db: Db, updates: { messageId: string; report: IncomingStatus }[]): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await db
    .select({ id: messages.id, environmentId: messages.environmentId, status: messages.status })
    .from(messages)
    .where(inArray(messages.id, [...new Set(updates.map((u) => u.messageId))]));
  return writeStatuses(db, rows, updates);
}

/** Same, for reports that name the provider's message id (status webhooks). */
export async function applyProviderStatuses(
  db: Db,
  integrationId: string,
  updates: { providerMessageId: string; report: IncomingStatus }[],
): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await db
    .select({
      id: messages.id,
      environmentId: messages.environmentId,
      status: messages.status,
      providerMessageId: messages.providerMessageId,
      integrationId: messages.integrationId,
    })
    .from(messages)
    .where(inArray(messages.providerMessageId, [...new Set(updates.map((u) => u.providerMessageId))]));
  const mine = rows.filter((r) => r.integrationId === integrationId);
  const byProviderId = new Map(mine.map((r) => [r.providerMessageId, r.id]));
  return writeStatuses(
    db,
    mine,
    updates.flatMap((u) => {
      const messageId = byProviderId.get(u.providerMessageId);
      return messageId ? [{ messageId, report: u.report }] : [];
    }),
  );
}

async function writeStatuses(
  db: Db,
  rows: { id: string; environmentId: string; status: MessageStatus }[],
  updates: { messageId: string; report: IncomingStatus }[],
): Promise<number> {
  const current = new Map(rows.map((r) => [r.id, r]));
  const writes = new MessageWrites(db, new Date());
  let applied = 0;
  for (const { messageId, report } of updates) {
    const row = current.get(messageId);
    if (!row) continue;
    applied++;
    writes.event(row.environmentId, messageId, { status: report.status, ...(report.detail ? { detail: report.detail } : {}) }, report.at);
    if (RANK[report.status] > RANK[row.status] && RANK[row.status] >= RANK.sent && RANK[row.status] < RANK.skipped) {
      writes.statements.push(db.update(messages).set({ status: report.status, updatedAt: new Date() }).where(eq(messages.id, messageId)));
      row.status = report.status;
    }
  }
  await runBatch(db, writes.all());
  return applied;
}
