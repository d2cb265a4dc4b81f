import { FIGURE_MASKS, maskOf, REASONED_STATUSES } from "../../../contract/message-figures";
import { errorGroupText } from "./error-text";
import { DAY_MS, HOUR_MS, LATENCY_BUCKETS_MS } from "./rows";
import type { Snapshot } from "./snapshot";

const REASONED = maskOf(REASONED_STATUSES);
const floorTo = (ms: number, size: number) => Math.floor(ms / size) * size;
/** Newly in `after`: none of the mask's bits before, one at least after. */
const reached = (before: Snapshot | null, after: Snapshot, mask: number) =>
  ((before?.states ?? 0) & mask) === 0 && (after.states & mask) !== 0;

/** The rollup_messages key of a message as it stands: its dimensions and the states it reached. */
const countKey = (m: Snapshot) => [
  m.env,
  floorTo(m.created_at, HOUR_MS),
  m.workflow,
  m.step,
  m.channel,
  m.provider ?? "",
  m.tenant ?? "",
  m.states,
  (m.states & REASONED) !== 0 ? (m.error_code ?? "") : "",
];

/**
 * Keeps the rollups equal to the message rows through one change of one message, in the write's
 * transaction: the message leaves the row of its old key and joins the row of its new one, so a
 * retried write (which changes nothing) counts nothing, and every figure stays what counting the
 * messages would give. Latency, errors and fatigue count the first time a message reaches them.
 */
export function applyChange(sql: SqlStorage, before: Snapshot | null, after: Snapshot, now: number, recipients: NewRecipients): void {
  moveCount(sql, before, after);
  if (before === null && recipients.first(after)) countRecipient(sql, after);
  if (reached(before, after, FIGURE_MASKS.sent)) {
    countLatency(sql, after);
    countFatigue(sql, after);
  }
  if (reached(before, after, FIGURE_MASKS.failed)) countError(sql, after, now);
}

function moveCount(sql: SqlStorage, before: Snapshot | null, after: Snapshot): void {
  const from = before ? countKey(before) : null;
  const to = countKey(after);
  if (from && JSON.stringify(from) === JSON.stringify(to)) return;
  if (from) {
    const where =
      "env = ? AND hour = ? AND workflow = ? AND step = ? AND channel = ? AND provider = ? AND tenant = ? AND states = ? AND reason = ?";
    sql.exec(`UPDATE rollup_messages SET n = n - 1 WHERE ${where}`, ...from);
    sql.exec(`DELETE FROM rollup_messages WHERE ${where} AND n <= 0`, ...from);
  }
  sql.exec(
    `INSERT INTO rollup_messages (env, hour, workflow, step, channel, provider, tenant, states, reason, n) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET n = n + 1`,
    ...to,
  );
}

/**
 * Which recipients (trigger, subscriber) a write gives their first message: those with no message
 * stored before it, each once. Read before the write's inserts, since one write may insert several
 * messages of one recipient (a trigger cancelled before it ran records all its steps at once).
 */
export class NewRecipients {
  private readonly known = new Set<string>();

  constructor(sql: SqlStorage, inserts: readonly { environmentId: string; transactionId: string; subscriberId: string }[]) {
    for (const m of inserts) {
      const key = NewRecipients.key(m.environmentId, m.transactionId, m.subscriberId);
      if (this.known.has(key)) continue;
      const [row] = sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM messages WHERE env = ? AND tx = ? AND subscriber = ?",
          m.environmentId,
          m.transactionId,
          m.subscriberId,
        )
        .toArray();
      if ((row?.n ?? 0) > 0) this.known.add(key);
    }
  }

  private static key = (env: string, tx: string, subscriber: string) => JSON.stringify([env, tx, subscriber]);

  /** True once per recipient not stored before the write: all of a subscriber's messages are in this shard. */
  first(m: Snapshot): boolean {
    const key = NewRecipients.key(m.env, m.tx, m.subscriber);
    if (this.known.has(key)) return false;
    this.known.add(key);
    return true;
  }
}

function countRecipient(sql: SqlStorage, m: Snapshot): void {
  sql.exec(
    `INSERT INTO rollup_audience (env, hour, workflow, tenant, recipients) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET recipients = recipients + 1`,
    m.env,
    floorTo(m.created_at, HOUR_MS),
    m.workflow,
    m.tenant ?? "",
  );
}

/** From the last attempt's start (`sending`) to the provider's answer (`sent`, or `delivered` in the Inbox). */
function countLatency(sql: SqlStorage, m: Snapshot): void {
  const [row] = sql
    .exec<{ started: number | null; answered: number | null }>(
      `SELECT max(CASE WHEN status = 'sending' THEN at END) AS started, max(CASE WHEN status IN ('sent', 'delivered') THEN at END) AS answered
       FROM message_events WHERE message_id = ?`,
      m.id,
    )
    .toArray();
  if (!row || row.started === null || row.answered === null) return;
  const ms = Math.max(0, row.answered - row.started);
  const bucket = LATENCY_BUCKETS_MS.findIndex((le) => ms <= le);
  sql.exec(
    `INSERT INTO rollup_latency (env, hour, channel, provider, tenant, workflow, bucket, n) VALUES (?, ?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET n = n + 1`,
    m.env,
    floorTo(m.created_at, HOUR_MS),
    m.channel,
    m.provider ?? "",
    m.tenant ?? "",
    m.workflow,
    bucket < 0 ? LATENCY_BUCKETS_MS.length : bucket,
  );
}

function countFatigue(sql: SqlStorage, m: Snapshot): void {
  sql.exec(
    `INSERT INTO rollup_fatigue (env, day, subscriber, channel, workflow, tenant, n) VALUES (?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET n = n + 1`,
    m.env,
    floorTo(m.created_at, DAY_MS),
    m.subscriber,
    m.channel,
    m.workflow,
    m.tenant ?? "",
  );
}

function countError(sql: SqlStorage, m: Snapshot, now: number): void {
  const code = m.error_code ?? m.status;
  sql.exec(
    `INSERT INTO rollup_errors (env, day, workflow, tenant, channel, provider, code, message, n, first_at, last_at, example)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
     ON CONFLICT DO UPDATE SET n = n + 1, first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at), example = excluded.example`,
    m.env,
    floorTo(m.created_at, DAY_MS),
    m.workflow,
    m.tenant ?? "",
    m.channel,
    m.provider ?? "",
    code,
    errorGroupText(m.error_message),
    now,
    now,
    m.id,
  );
}

/** A trigger recorded for the first time in this (its) shard. */
export function countTrigger(
  sql: SqlStorage,
  t: { environmentId: string; workflowKey: string; tenantId?: string | null; createdAt: number },
): void {
  sql.exec(
    `INSERT INTO rollup_audience (env, hour, workflow, tenant, triggers) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT DO UPDATE SET triggers = triggers + 1`,
    t.environmentId,
    floorTo(t.createdAt, HOUR_MS),
    t.workflowKey,
    t.tenantId ?? "",
  );
}
