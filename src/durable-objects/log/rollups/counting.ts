import { FIGURE_MASKS, maskOf, REASONED_STATUSES } from "../../../contract/message-figures";
import { jsonParts, jsonPartsFrom } from "../../../lib/json-parts";
import type { LogEvent } from "../rows";
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
  (m.states & REASONED) !== 0 ? (m.reason ?? "") : "",
];

/**
 * Keeps the rollups equal to the message rows through one write, in the write's transaction:
 * each message leaves the row of its old key and joins the row of its new one, so a retried
 * write (which changes nothing) counts nothing, and every figure stays what counting the messages
 * would give. Latency, errors and fatigue count the first time a message reaches them.
 *
 * The changes are summed per rollup row and applied with a few statements per write: a write's
 * messages mostly share their keys (one workflow, step and hour), and a statement per message
 * per table was most of a log shard's CPU in delivery.
 */
export class RollupChanges {
  private readonly counts = new Map<string, { key: SqlStorageValue[]; n: number }>();
  private readonly audience = new Sum();
  private readonly fatigue = new Sum();
  private readonly errors = new Map<string, { key: SqlStorageValue[]; n: number; example: string }>();
  /** Messages first sent in this write: their latency is read from their timelines once the write's events are in. */
  private readonly sent: Snapshot[] = [];

  /**
   * `timelines`: the whole timeline of each message it names, as this write brings it (messages the
   * write inserted, with no entry stored before): their latency is counted from it, not read back.
   */
  constructor(
    private readonly now: number,
    private readonly timelines: ReadonlyMap<string, readonly LogEvent[]> = new Map(),
  ) {}

  /** One message from how it was (null: not stored) to how the write left it. */
  change(before: Snapshot | null, after: Snapshot, recipients: NewRecipients): void {
    this.moveCount(before, after);
    if (before === null && recipients.first(after))
      this.audience.add([after.env, floorTo(after.created_at, HOUR_MS), after.workflow, after.tenant ?? ""]);
    if (reached(before, after, FIGURE_MASKS.sent)) {
      this.sent.push(after);
      this.fatigue.add([after.env, floorTo(after.created_at, DAY_MS), after.subscriber, after.channel, after.workflow, after.tenant ?? ""]);
    }
    if (reached(before, after, FIGURE_MASKS.failed)) {
      const key = [
        after.env,
        floorTo(after.created_at, DAY_MS),
        after.workflow,
        after.tenant ?? "",
        after.channel,
        after.provider ?? "",
        after.reason ?? after.status,
        errorGroupText(after.error_message),
      ];
      const k = JSON.stringify(key);
      const row = this.errors.get(k);
      // As one statement per message left it: the last message counted is the example.
      if (row) {
        row.n++;
        row.example = after.id;
      } else this.errors.set(k, { key, n: 1, example: after.id });
    }
  }

  private moveCount(before: Snapshot | null, after: Snapshot): void {
    const from = before ? countKey(before) : null;
    const to = countKey(after);
    const toKey = JSON.stringify(to);
    if (from) {
      const fromKey = JSON.stringify(from);
      if (fromKey === toKey) return;
      this.countBy(fromKey, from, -1);
    }
    this.countBy(toKey, to, 1);
  }

  private countBy(k: string, key: SqlStorageValue[], n: number): void {
    const row = this.counts.get(k);
    if (row) row.n += n;
    else this.counts.set(k, { key, n });
  }

  /** Writes the summed changes; call after the write's own rows (latency reads the new events). */
  apply(sql: SqlStorage): void {
    const where =
      "env = ? AND hour = ? AND workflow = ? AND step = ? AND channel = ? AND provider = ? AND tenant = ? AND states = ? AND reason = ?";
    const joined: [...SqlStorageValue[], number][] = [];
    for (const { key, n } of this.counts.values()) {
      if (n > 0) joined.push([...key, n]);
      else if (n < 0) {
        sql.exec(`UPDATE rollup_messages SET n = n + ? WHERE ${where}`, n, ...key);
        sql.exec(`DELETE FROM rollup_messages WHERE ${where} AND n <= 0`, ...key);
      }
    }
    addRows(sql, "rollup_messages", ["env", "hour", "workflow", "step", "channel", "provider", "tenant", "states", "reason"], joined, "n");
    addRows(sql, "rollup_audience", ["env", "hour", "workflow", "tenant"], this.audience.rows(), "recipients");
    addRows(sql, "rollup_fatigue", ["env", "day", "subscriber", "channel", "workflow", "tenant"], this.fatigue.rows(), "n");
    this.applyLatency(sql);
    this.applyErrors(sql);
  }

  /** From the last attempt's start (`sending`) to the provider's answer (`sent`, or `delivered` in the Inbox). */
  private applyLatency(sql: SqlStorage): void {
    if (this.sent.length === 0) return;
    const times = new Map<string, { started: number | null; answered: number | null }>();
    for (const m of this.sent) {
      const timeline = this.timelines.get(m.id);
      if (timeline) times.set(m.id, latencyTimes(timeline));
    }
    // The others' timelines began before this write. In parts under a Durable Object's 2 MB per
    // string (lib/json-parts.ts), as every list here: one part, one statement.
    for (const part of jsonParts(this.sent.filter((m) => !times.has(m.id)).map((m) => m.id)))
      for (const row of sql.exec<{ id: string; started: number | null; answered: number | null }>(
        `SELECT message_id AS id, max(CASE WHEN status = 'sending' THEN at END) AS started,
           max(CASE WHEN status IN ('sent', 'delivered') THEN at END) AS answered
         FROM message_events WHERE message_id IN (SELECT value FROM json_each(?)) GROUP BY message_id`,
        part,
      ))
        times.set(row.id, row);
    const latency = new Sum();
    for (const m of this.sent) {
      const t = times.get(m.id);
      if (!t || t.started === null || t.answered === null) continue;
      const ms = Math.max(0, t.answered - t.started);
      const bucket = LATENCY_BUCKETS_MS.findIndex((le) => ms <= le);
      latency.add([
        m.env,
        floorTo(m.created_at, HOUR_MS),
        m.channel,
        m.provider ?? "",
        m.tenant ?? "",
        m.workflow,
        bucket < 0 ? LATENCY_BUCKETS_MS.length : bucket,
      ]);
    }
    addRows(sql, "rollup_latency", ["env", "hour", "channel", "provider", "tenant", "workflow", "bucket"], latency.rows(), "n");
  }

  private applyErrors(sql: SqlStorage): void {
    for (const { key, n, example } of this.errors.values())
      sql.exec(
        `INSERT INTO rollup_errors (env, day, workflow, tenant, channel, provider, code, message, n, first_at, last_at, example)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET n = n + excluded.n, first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at), example = excluded.example`,
        ...key,
        n,
        this.now,
        this.now,
        example,
      );
  }
}

/**
 * What the latency read takes from a message's timeline (`applyLatency`'s SELECT), from the
 * entries themselves: the last start and the last answer, null where there is none.
 */
function latencyTimes(timeline: readonly LogEvent[]): { started: number | null; answered: number | null } {
  let started: number | null = null;
  let answered: number | null = null;
  for (const { status, at } of timeline) {
    if (status === "sending") started = Math.max(started ?? at, at);
    else if (status === "sent" || status === "delivered") answered = Math.max(answered ?? at, at);
  }
  return { started, answered };
}

/**
 * Which recipients (trigger, subscriber) a write gives their first message: those with no message
 * stored before it, each once. Read before the write's inserts, since one write may insert several
 * messages of one recipient (a trigger cancelled before it ran records all its steps at once).
 * The same statement tells which of the write's new messages had timeline entries stored before
 * (entries may arrive for an id with no row): only theirs is not wholly in the write.
 */
export class NewRecipients {
  private readonly known = new Set<string>();
  private readonly timed = new Set<string>();

  constructor(sql: SqlStorage, inserts: readonly { id: string; environmentId: string; transactionId: string; subscriberId: string }[]) {
    const asked = inserts.map((m) => [m.environmentId, m.transactionId, m.subscriberId, m.id] as const);
    // One statement for the write (a part): each asked message seeks the identity index and the timeline's once.
    for (const { json, from } of jsonPartsFrom(asked))
      for (const { i, known, timed } of sql.exec<{ i: number; known: number; timed: number }>(
        `SELECT a.key AS i,
           EXISTS (SELECT 1 FROM messages WHERE env = a.value ->> 0 AND tx = a.value ->> 1 AND subscriber = a.value ->> 2) AS known,
           EXISTS (SELECT 1 FROM message_events WHERE message_id = a.value ->> 3) AS timed
         FROM json_each(?) AS a WHERE known OR timed`,
        json,
      )) {
        const [env, tx, subscriber, id] = asked[from + i]!;
        if (known) this.known.add(NewRecipients.key(env, tx, subscriber));
        if (timed) this.timed.add(id);
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

  /** Whether timeline entries of this message were stored before the write. */
  timedBefore(id: string): boolean {
    return this.timed.has(id);
  }
}

/** Counts per key, in the order keys first came. */
class Sum {
  private readonly sums = new Map<string, [...SqlStorageValue[], number]>();

  add(key: SqlStorageValue[]): void {
    const k = JSON.stringify(key);
    const row = this.sums.get(k);
    if (row) (row[row.length - 1] as number)++;
    else this.sums.set(k, [...key, 1]);
  }

  rows(): [...SqlStorageValue[], number][] {
    return [...this.sums.values()];
  }
}

/**
 * Adds each row's last value to `counter` of the row its key names (created at that value), all
 * rows in one statement: the rows travel as one JSON array, each an array of the key's values and
 * the count.
 */
function addRows(sql: SqlStorage, table: string, key: readonly string[], rows: [...SqlStorageValue[], number][], counter: string): void {
  if (rows.length === 0) return;
  const values = [...key, counter].map((_, i) => `value ->> ${i}`).join(", ");
  // `WHERE true`: an upsert's SELECT needs a WHERE so its ON is not read as a join's. Parts add, as rows of one part do.
  for (const part of jsonParts(rows))
    sql.exec(
      `INSERT INTO ${table} (${key.join(", ")}, ${counter}) SELECT ${values} FROM json_each(?) WHERE true
       ON CONFLICT DO UPDATE SET ${counter} = ${counter} + excluded.${counter}`,
      part,
    );
}

/**
 * The triggers of a call not stored yet in this (their) shard, counted where first recorded: call
 * before recording them. One statement for the call (a part) where a statement per trigger was
 * most of a bulk's; all parts read before the records are written, as one part does. A trigger
 * named twice in a call counts once, by its first record (the one stored: a later one changes
 * only its status): the count stays that of the records.
 */
export function countNewTriggers(
  sql: SqlStorage,
  triggers: readonly { environmentId: string; transactionId: string; workflowKey: string; tenantId?: string | null; createdAt: number }[],
): void {
  const seen = new Set<string>();
  const rows = triggers
    .filter((t) => {
      const key = JSON.stringify([t.environmentId, t.transactionId]);
      return !seen.has(key) && Boolean(seen.add(key));
    })
    .map((t) => [t.environmentId, t.transactionId, floorTo(t.createdAt, HOUR_MS), t.workflowKey, t.tenantId ?? ""]);
  // `GROUP BY` sums a key's new triggers into its one row; the upsert then adds them.
  for (const part of jsonParts(rows))
    sql.exec(
      `INSERT INTO rollup_audience (env, hour, workflow, tenant, triggers)
       SELECT a.value ->> 0, a.value ->> 2, a.value ->> 3, a.value ->> 4, count(*) FROM json_each(?) AS a
       WHERE NOT EXISTS (SELECT 1 FROM triggers WHERE env = a.value ->> 0 AND tx = a.value ->> 1) GROUP BY 1, 2, 3, 4
       ON CONFLICT DO UPDATE SET triggers = triggers + excluded.triggers`,
      part,
    );
}
