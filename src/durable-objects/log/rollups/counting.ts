import { FIGURE_MASKS, maskOf, REASONED_STATUSES } from "../../../contract/message-figures";
import { jsonParts, PART_ROWS } from "../../../lib/json-parts";
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
 * Adds one to `recipients` of each row's key (env, hour, workflow, tenant) for each recipient
 * (tx ->> 4, subscriber ->> 5) with no message but the write's new ones (ids, at 6). Those are
 * distinct and stored, so that is a recipient with as many messages as they are: counted in the
 * identity index alone, where comparing ids read each message's row. The ids are counted where
 * they are in the row's binary JSON (`a.v, '$[6]'`), not rendered to text and parsed (`a.v -> 6`).
 */
export const RECIPIENTS_ADD = `${PART_ROWS} INSERT INTO rollup_audience (env, hour, workflow, tenant, recipients)
  SELECT a.v ->> 0, a.v ->> 1, a.v ->> 2, a.v ->> 3, count(*) FROM part AS a
  WHERE (SELECT count(*) FROM messages WHERE env = a.v ->> 0 AND tx = a.v ->> 4 AND subscriber = a.v ->> 5) = json_array_length(a.v, '$[6]')
  GROUP BY 1, 2, 3, 4 ON CONFLICT DO UPDATE SET recipients = recipients + excluded.recipients`;

/** A message's last `sending` and last answer (`sent`, `delivered`), where its timeline has them. */
export interface SendTimes {
  started?: number;
  answered?: number;
}

/**
 * The send times of these messages from timeline entries (the first of each id, as the insert
 * keeps it): what LATENCY_ADD reads of a timeline made of these entries alone.
 */
export function sendTimes(
  ids: ReadonlySet<string>,
  entries: readonly { id: string; messageId: string; status: string; at: number }[],
): Map<string, SendTimes> {
  const times = new Map<string, SendTimes>();
  for (const id of ids) times.set(id, {});
  const seen = new Set<string>();
  for (const e of entries) {
    const t = times.get(e.messageId);
    if (!t || seen.has(e.id)) continue;
    seen.add(e.id);
    if (e.status === "sending") t.started = Math.max(t.started ?? e.at, e.at);
    else if (e.status === "sent" || e.status === "delivered") t.answered = Math.max(t.answered ?? e.at, e.at);
  }
  return times;
}

/** A latency's index in LATENCY_BUCKETS_MS (past the last bound, one more), as BUCKET computes it. */
const bucketOf = (ms: number) => {
  const i = LATENCY_BUCKETS_MS.findIndex((le) => ms <= le);
  return i === -1 ? LATENCY_BUCKETS_MS.length : i;
};

/** A latency in ms (`ms`) as its index in LATENCY_BUCKETS_MS; past the last bound, one more. */
const BUCKET = `CASE ${LATENCY_BUCKETS_MS.map((le, i) => `WHEN ms <= ${le} THEN ${i}`).join(" ")} ELSE ${LATENCY_BUCKETS_MS.length} END`;

/**
 * Adds each sent message (key ->> 0..5, id ->> 6) with a start and an answer on its timeline to
 * its latency bucket: the last of each, the answer no earlier than the start. The seeks are
 * MATERIALIZED: as a plain subquery SQLite copies them into every WHEN of the bucket's CASE and
 * into its GROUP BY, and ran them up to 22 times a message where 2 do.
 */
export const LATENCY_ADD = `${PART_ROWS}, timed AS MATERIALIZED (
    SELECT a.v AS v,
      (SELECT max(at) FROM message_events WHERE message_id = a.v ->> 6 AND status = 'sending') AS started,
      (SELECT max(at) FROM message_events WHERE message_id = a.v ->> 6 AND status IN ('sent', 'delivered')) AS answered
    FROM part AS a)
  INSERT INTO rollup_latency (env, hour, channel, provider, tenant, workflow, bucket, n)
  SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, v ->> 5, ${BUCKET}, count(*) FROM (
    SELECT v, max(0, answered - started) AS ms FROM timed WHERE started IS NOT NULL AND answered IS NOT NULL)
  WHERE true GROUP BY 1, 2, 3, 4, 5, 6, 7 ON CONFLICT DO UPDATE SET n = n + excluded.n`;

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
  /** The write's new messages by recipient (trigger, subscriber): the first one's key (and the recipient), the ids of all. */
  private readonly recipients = new Map<string, { key: SqlStorageValue[]; ids: string[] }>();
  private readonly fatigue = new Sum();
  private readonly errors = new Map<string, { key: SqlStorageValue[]; n: number; example: string }>();
  /** Messages first sent in this write: their latency is read from their timelines once the write's events are in. */
  private readonly sent: Snapshot[] = [];

  /**
   * `ownTimes`: the send times of the messages this write inserted, from its own timeline entries
   * (`sendTimes`). An inserted message has no entry but the write's, so its latency needs no read
   * of the timeline: that read was a tenth of a fan-out's log write.
   */
  constructor(
    private readonly now: number,
    private readonly ownTimes: ReadonlyMap<string, SendTimes> = new Map(),
  ) {}

  /** One message from how it was (null: inserted by this write) to how the write left it. */
  change(before: Snapshot | null, after: Snapshot): void {
    this.moveCount(before, after);
    if (before === null) {
      const recipient = JSON.stringify([after.env, after.tx, after.subscriber]);
      const known = this.recipients.get(recipient);
      if (known) known.ids.push(after.id);
      else {
        const key = [after.env, floorTo(after.created_at, HOUR_MS), after.workflow, after.tenant ?? "", after.tx, after.subscriber];
        this.recipients.set(recipient, { key, ids: [after.id] });
      }
    }
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
    this.applyRecipients(sql);
    addRows(sql, "rollup_fatigue", ["env", "day", "subscriber", "channel", "workflow", "tenant"], this.fatigue.rows(), "n");
    this.applyLatency(sql);
    this.applyErrors(sql);
  }

  /**
   * Recipients given their first message by this write, counted where the first of their new
   * messages says: a recipient is new when every message it has now is one of them. Decided in
   * the statement that counts it, after the insert: a read before the insert was one more
   * statement per write.
   */
  private applyRecipients(sql: SqlStorage): void {
    const rows = [...this.recipients.values()].map(({ key, ids }) => [...key, ids]);
    for (const part of jsonParts(rows)) sql.exec(RECIPIENTS_ADD, part);
  }

  /**
   * From the last attempt's start (`sending`) to the provider's answer (`sent`, or `delivered` in
   * the Inbox): for a message with `ownTimes`, from the write's own entries, bucketed by `bucketOf`;
   * for the others, read from the timelines as the write left them by LATENCY_ADD (its `BUCKET`).
   */
  private applyLatency(sql: SqlStorage): void {
    const key = (m: Snapshot) => [m.env, floorTo(m.created_at, HOUR_MS), m.channel, m.provider ?? "", m.tenant ?? "", m.workflow];
    const known = new Sum();
    const rows: SqlStorageValue[][] = [];
    for (const m of this.sent) {
      const own = this.ownTimes.get(m.id);
      if (!own) rows.push([...key(m), m.id]);
      else if (own.started !== undefined && own.answered !== undefined)
        known.add([...key(m), bucketOf(Math.max(0, own.answered - own.started))]);
    }
    addRows(sql, "rollup_latency", ["env", "hour", "channel", "provider", "tenant", "workflow", "bucket"], known.rows(), "n");
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts), as every list here: one part, one statement.
    for (const part of jsonParts(rows)) sql.exec(LATENCY_ADD, part);
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
  const values = [...key, counter].map((_, i) => `v ->> ${i}`).join(", ");
  // `WHERE true`: an upsert's SELECT needs a WHERE so its ON is not read as a join's. Parts add, as rows of one part do.
  for (const part of jsonParts(rows))
    sql.exec(
      `${PART_ROWS} INSERT INTO ${table} (${key.join(", ")}, ${counter}) SELECT ${values} FROM part WHERE true
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
      `${PART_ROWS} INSERT INTO rollup_audience (env, hour, workflow, tenant, triggers)
       SELECT a.v ->> 0, a.v ->> 2, a.v ->> 3, a.v ->> 4, count(*) FROM part AS a
       WHERE NOT EXISTS (SELECT 1 FROM triggers WHERE env = a.v ->> 0 AND tx = a.v ->> 1) GROUP BY 1, 2, 3, 4
       ON CONFLICT DO UPDATE SET triggers = triggers + excluded.triggers`,
      part,
    );
}
