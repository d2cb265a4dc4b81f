import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunk, runBatch } from "../../db/batch";
import { messageEvents, messages, type MessageStatus, type SuppressionReason } from "../../db/schema";
import { MessageWrites } from "../../delivery/writes/message-writes";
import { dispatchWritten, type EventQueue } from "../../delivery/webhooks/dispatch";
import type { LogEvent, LogMessage, LogStore } from "../../durable-objects/client/log-store";
import { partitionOfId } from "../../lib/ids";
import { isWaitStatus } from "../../engine/wait-statuses";

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
  transactionId: string;
  subscriberId: string;
  stepId: string;
  status: MessageStatus;
  channel: string;
  to: string | null;
  provider: string | null;
}

/** A message a report names, and what its timeline already holds (as `<status>` and `<status>:<at ms>`). */
interface Found {
  row: MessageRow;
  /** The log's message, whose outbound events carry its fields; absent for D1's legacy rows. */
  logged?: LogMessage;
}

const rowColumns = {
  id: messages.id,
  environmentId: messages.environmentId,
  transactionId: messages.transactionId,
  subscriberId: messages.subscriberId,
  stepId: messages.stepId,
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

/** What a log message's timeline holds, in the keys `writeStatuses` checks. */
const loggedKeys = (found: { message: LogMessage; events: LogEvent[] }[]) =>
  found.flatMap(({ message, events }) => events.flatMap((e) => [`${message.id}:${e.status}`, `${message.id}:${e.status}:${e.at}`]));

/** D1's legacy messages' timelines, in the same keys. */
async function legacyKeys(db: Db, ids: string[]): Promise<string[]> {
  const logged = await readByIds(ids, (slice) =>
    db
      .select({ messageId: messageEvents.messageId, status: messageEvents.status, at: messageEvents.at })
      .from(messageEvents)
      .where(inArray(messageEvents.messageId, slice)),
  );
  return logged.flatMap((e) => [`${e.messageId}:${e.status}`, `${e.messageId}:${e.status}:${e.at.getTime()}`]);
}

const foundInLog = (found: { message: LogMessage }[]): Found[] => found.map(({ message }) => ({ row: { ...message }, logged: message }));

/**
 * Applies status reports to messages found by id (the log's by the partition their id carries,
 * D1's legacy ones by id); every new report is kept in the message's timeline. The outbound
 * events written go to `queue` (without one, the sweep dispatches them).
 */
export async function applyStatuses(
  db: Db,
  logs: LogStore,
  updates: { messageId: string; report: IncomingStatus }[],
  queue?: EventQueue,
): Promise<number> {
  if (updates.length === 0) return 0;
  const ids = [...new Set(updates.map((u) => u.messageId))];
  const legacy = ids.filter((id) => partitionOfId(id) === null);
  const [logged, rows] = await Promise.all([
    // A tracking link names the message only: its environment is whichever the message is in.
    logs.find(null, ids),
    readByIds(legacy, (slice) => db.select(rowColumns).from(messages).where(inArray(messages.id, slice))),
  ]);
  const seen = [
    ...loggedKeys(logged),
    ...(await legacyKeys(
      db,
      rows.map((r) => r.id),
    )),
  ];
  return writeStatuses(db, logs, [...foundInLog(logged), ...rows.map((row) => ({ row }))], seen, updates, queue);
}

/**
 * Same, for reports that name the provider's message id (status webhooks): the log's messages
 * through the refs kept by provider id, D1's legacy ones by their column; either only when the
 * integration reporting is the one that sent them.
 */
export async function applyProviderStatuses(
  db: Db,
  logs: LogStore,
  integrationId: string,
  updates: { providerMessageId: string; report: IncomingStatus }[],
  queue?: EventQueue,
): Promise<number> {
  if (updates.length === 0) return 0;
  const providerIds = [...new Set(updates.map((u) => u.providerMessageId))];
  const [refs, rows] = await Promise.all([
    logs.refs(providerIds),
    readByIds(providerIds, (ids) =>
      db
        .select({ ...rowColumns, providerMessageId: messages.providerMessageId, integrationId: messages.integrationId })
        .from(messages)
        .where(inArray(messages.providerMessageId, ids)),
    ),
  ]);
  const logged = (
    await Promise.all(
      [...Map.groupBy(refs, (r) => r.environmentId)].map(([environmentId, some]) =>
        logs.find(
          environmentId,
          some.map((r) => r.messageId),
        ),
      ),
    )
  )
    .flat()
    .filter((f) => f.message.integrationId === integrationId);
  const legacy = rows.filter((r) => r.integrationId === integrationId);
  const byProviderId = new Map<string, string>([
    ...legacy.map((r) => [r.providerMessageId, r.id] as [string, string]),
    ...logged.map((f) => [f.message.providerMessageId, f.message.id] as [string, string]),
  ]);
  const seen = [
    ...loggedKeys(logged),
    ...(await legacyKeys(
      db,
      legacy.map((r) => r.id),
    )),
  ];
  return writeStatuses(
    db,
    logs,
    [...foundInLog(logged), ...legacy.map((row) => ({ row }))],
    seen,
    updates.flatMap((u) => {
      const messageId = byProviderId.get(u.providerMessageId);
      return messageId ? [{ messageId, report: u.report }] : [];
    }),
    queue,
  );
}

/**
 * Writes reports idempotently: a status already in a message's timeline (once-only outcomes at
 * any time, opens and clicks at the same instant) adds no event, and the message's status only
 * moves forward, so a replayed or late report changes nothing it should not. Timeline entries and
 * status changes go where the message is (the log, or D1 for a legacy row). D1's statements
 * (legacy rows, suppressions, outbound events) commit before the log's: a report retried after a
 * failure between them finds its timeline entry missing and writes it then, while its outbound
 * event, whose id comes from the fact, is not written twice.
 */
async function writeStatuses(
  db: Db,
  logs: LogStore,
  found: Found[],
  logged: string[],
  updates: { messageId: string; report: IncomingStatus }[],
  queue: EventQueue | undefined,
): Promise<number> {
  if (found.length === 0) return 0;
  const current = new Map(found.map((f) => [f.row.id, f]));
  const seen = new Set(logged);
  const now = new Date();
  const writes = new MessageWrites(db, now);
  const forward = new Map<string, MessageStatus>();
  let applied = 0;
  for (const { messageId, report } of updates) {
    const entry = current.get(messageId);
    if (!entry) continue;
    const { row } = entry;
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
      forward.set(messageId, status);
      row.status = status;
    }
  }
  // The log's rows by the partition their ids carry; a legacy message's land in `batch.legacy`, for D1.
  const batch = writes.logBatch(logs);
  for (const [id, status] of forward) {
    const { row } = current.get(id)!;
    batch.update(id, { status, updatedAt: now.getTime() }, row);
  }
  // The log's messages as found describe their outbound events (a report changes none of what those say).
  const described = new Map(found.flatMap((f) => (f.logged ? [[f.row.id, f.logged] as const] : [])));
  const results = await runBatch(db, writes.all(batch.legacy, described));
  if (batch.shards > 0) await logs.write(batch);
  await wakeWaits(logs, found, updates);
  if (queue) await dispatchWritten(queue, writes.written(results));
  return applied;
}

/**
 * Every status report of every channel ends here, so this is where a wait watching a message
 * learns of it. Only messages marked `watched` when written (a wait step of their workflow watches
 * their step) reach their trigger's home, so a report on any other message costs nothing more. A
 * replayed report wakes again, harmlessly: the home ends a wait once. A wake that fails is logged,
 * not answered as an error (the status is recorded): that wait then ends at its timeout.
 */
async function wakeWaits(logs: LogStore, found: Found[], updates: { messageId: string; report: IncomingStatus }[]): Promise<void> {
  const byId = new Map(found.flatMap((f) => (f.logged?.watched ? [[f.row.id, f.logged] as const] : [])));
  if (byId.size === 0) return;
  const reached = updates.flatMap(({ messageId, report }) => {
    const m = byId.get(messageId);
    return m && report.status && isWaitStatus(report.status)
      ? [
          {
            environmentId: m.environmentId,
            transactionId: m.transactionId,
            subscriberId: m.subscriberId,
            stepId: m.stepId,
            status: report.status,
          },
        ]
      : [];
  });
  if (reached.length === 0) return;
  await logs.wakeWaits(reached).catch((error: unknown) => {
    console.error(JSON.stringify({ level: "error", event: "wait_wake_failed", error: String(error) }));
  });
}
