import { eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunk, runBatch } from "../../db/batch";
import { messageEvents, messages, type MessageStatus, type SuppressionReason } from "../../db/schema";
import { MessageWrites } from "../../delivery/writes/message-writes";
import { dispatchWritten, type EventQueue } from "../../delivery/webhooks/dispatch";

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
  // An in-app message's Inbox life: it is never opened or clicked, so these only order among themselves.
  seen: 3.6,
  read: 3.7,
  archived: 3.8,
  skipped: 9,
  cancelled: 9,
};

/**
 * Outcomes a message reaches once: a second report of one is a replay or a provider's retry, never
 * news. An in-app message is seen, read and archived once too: marking it unread and read again
 * (or unarchived and archived) is no new fact, so neither its timeline nor `message.read` repeats.
 */
const ONCE: ReadonlySet<MessageStatus> = new Set(["sent", "delivered", "bounced", "failed", "undeliverable", "seen", "read", "archived"]);

export interface IncomingStatus {
  /** Absent for a report that only puts the address on the suppression list (an unsubscribe). */
  status?: MessageStatus;
  at: Date;
  detail?: Record<string, unknown>;
  suppress?: Exclude<SuppressionReason, "invalid_recipient">;
}

interface MessageRow {
  id: string;
  environmentId: string;
  status: MessageStatus;
  channel: string;
  to: string | null;
  provider: string | null;
}

const rowColumns = {
  id: messages.id,
  environmentId: messages.environmentId,
  status: messages.status,
  channel: messages.channel,
  to: messages.to,
  provider: messages.provider,
};

/** D1 binds at most 100 parameters per statement: reads by id go in slices of this many. */
const IDS_PER_READ = 90;

/** Runs a read once per slice of `ids`, so that a SendGrid batch of hundreds of events stays within D1's limit. */
async function readByIds<T>(ids: string[], read: (slice: string[]) => Promise<T[]>): Promise<T[]> {
  const slices = await Promise.all(chunk([...new Set(ids)], IDS_PER_READ).map(read));
  return slices.flat();
}

/**
 * Applies status reports to messages found by id; every new report is kept in the event log.
 * The outbound events written go to `queue` (without one, the sweep dispatches them).
 */
export async function applyStatuses(db: Db, updates: { messageId: string; report: IncomingStatus }[], queue?: EventQueue): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await readByIds(
    updates.map((u) => u.messageId),
    (ids) => db.select(rowColumns).from(messages).where(inArray(messages.id, ids)),
  );
  return writeStatuses(db, rows, updates, queue);
}

/** Same, for reports that name the provider's message id (status webhooks). */
export async function applyProviderStatuses(
  db: Db,
  integrationId: string,
  updates: { providerMessageId: string; report: IncomingStatus }[],
  queue?: EventQueue,
): Promise<number> {
  if (updates.length === 0) return 0;
  const rows = await readByIds(
    updates.map((u) => u.providerMessageId),
    (ids) =>
      db
        .select({ ...rowColumns, providerMessageId: messages.providerMessageId, integrationId: messages.integrationId })
        .from(messages)
        .where(inArray(messages.providerMessageId, ids)),
  );
  const mine = rows.filter((r) => r.integrationId === integrationId);
  const byProviderId = new Map(mine.map((r) => [r.providerMessageId, r.id]));
  return writeStatuses(
    db,
    mine,
    updates.flatMap((u) => {
      const messageId = byProviderId.get(u.providerMessageId);
      return messageId ? [{ messageId, report: u.report }] : [];
    }),
    queue,
  );
}

/**
 * Writes reports idempotently: a status already in a message's log (once-only outcomes at any
 * time, opens and clicks at the same instant) adds no event, and the message's status only moves
 * forward, so a replayed or late report changes nothing it should not.
 */
async function writeStatuses(
  db: Db,
  rows: MessageRow[],
  updates: { messageId: string; report: IncomingStatus }[],
  queue: EventQueue | undefined,
): Promise<number> {
  if (rows.length === 0) return 0;
  const current = new Map(rows.map((r) => [r.id, r]));
  const logged = await readByIds([...current.keys()], (ids) =>
    db
      .select({ messageId: messageEvents.messageId, status: messageEvents.status, at: messageEvents.at })
      .from(messageEvents)
      .where(inArray(messageEvents.messageId, ids)),
  );
  const seen = new Set(logged.flatMap((e) => [`${e.messageId}:${e.status}`, `${e.messageId}:${e.status}:${e.at.getTime()}`]));
  const writes = new MessageWrites(db, new Date());
  let applied = 0;
  for (const { messageId, report } of updates) {
    const row = current.get(messageId);
    if (!row) continue;
    applied++;
    if (report.suppress && row.to && (row.channel === "email" || row.channel === "sms")) {
      writes.suppress(
        {
          environmentId: row.environmentId,
          channel: row.channel,
          address: row.to,
          reason: report.suppress,
          provider: row.provider,
          messageId,
        },
        report.at,
      );
    }
    const { status } = report;
    if (!status) continue;
    const once = `${messageId}:${status}`;
    const instant = `${once}:${report.at.getTime()}`;
    if (seen.has(instant) || (ONCE.has(status) && seen.has(once))) continue;
    seen.add(once).add(instant);
    writes.event(row.environmentId, messageId, { status, ...(report.detail ? { detail: report.detail } : {}) }, report.at);
    if (RANK[status] > RANK[row.status] && RANK[row.status] >= RANK.sent && RANK[row.status] < RANK.skipped) {
      writes.statements.push(db.update(messages).set({ status, updatedAt: new Date() }).where(eq(messages.id, messageId)));
      row.status = status;
    }
  }
  const written = writes.written(await runBatch(db, writes.all()));
  if (queue) await dispatchWritten(queue, written);
  return applied;
}
