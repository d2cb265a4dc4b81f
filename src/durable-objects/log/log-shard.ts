import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../../env";
import { messageFactStatement } from "../../db/queries/fact-events";
import { D1Outbox } from "./d1-outbox";
import { ERASED_SCHEMA, ErasedSubscribers } from "./erased";
import { ERASING_SCHEMA, type ErasePass, ErasingEnvironments } from "./environment-erasure";
import { type Generation, generationOfShard } from "../client/log-naming";
import { archiveAndExpire, emptyGeneration, logRetention, sandboxRetentionMs } from "./expiry";
import {
  ABOUT_COLUMNS,
  aboutOf,
  type MessageAboutRecord,
  bitOf,
  CHANGE_COLUMNS,
  MESSAGES_INSERT,
  type MessageRow,
  messageValues,
  RECIPIENTS_MESSAGES,
  stored,
  toEvent,
  toMessage,
} from "./records";
import { CapturesTable } from "./captures-table";
import { addMissingFeedColumns, FeedTable } from "./feed-table";
import type {
  Expired,
  FeedChange,
  FeedCounts,
  FeedFilter,
  FeedRow,
  LogCapture,
  LogEvent,
  LogMessage,
  LogWrite,
  LogWritten,
  MessageChanges,
  MessageFilter,
  ProviderRef,
  StatsRow,
} from "./rows";
import { addMissingColumns, type EventRecord, LOG_SCHEMA, type MessageRecord } from "./schema";
import { countNewTriggers, RollupChanges, sendTimes } from "./rollups/counting";
import { readAudience, readCounts, readDayVolumes, readErrors, readFatigue, readLatency } from "./rollups/reads";
import type { AnalyticsPart, AnalyticsPartName, AnalyticsQuery, DayVolume } from "./rollups/rows";
import { ROLLUP_SCHEMA } from "./rollups/schema";
import { changedSnapshot, insertedSnapshot, type Snapshot, snapshots } from "./rollups/snapshot";
import { analyticsRetentionMs, eraseRollupSubscriber, expireRollups } from "./rollups/upkeep";
import { TriggerIndex, upgradeTriggerIndex } from "./trigger-index";
import {
  addMissingTriggerColumns,
  type FinishedTrigger,
  type LogTrigger,
  type TriggerFilter,
  type TriggerKey,
  TriggersTable,
} from "./triggers-table";
import { markSchemaCurrent, schemaIsCurrent, schemaVersion } from "./schema-version";
import { addColumnsMissingFrom } from "./added-columns";
import { jsonParts, objectAt, PART_ROWS } from "../../lib/json-parts";

/** The states timeline entries reach, by message: each entry's status bit. */
const reachedStates = (events: readonly LogEvent[]): Map<string, number> => {
  const reached = new Map<string, number>();
  for (const e of events) reached.set(e.messageId, (reached.get(e.messageId) ?? 0) | bitOf(e.status));
  return reached;
};

/** How often a shard looks for rows past their retention. */
const EXPIRY_EVERY_MS = 3_600_000;
/**
 * When the alarm runs an outbox entry the writer has not settled: past the writer's in-process
 * retries (about 3 s) and most invocations' end, where it settles; an entry run by both adds nothing.
 */
const OUTBOX_GRACE_MS = 60_000;
/** When the alarm tries again an entry D1 refused. */
const OUTBOX_RETRY_MS = 30_000;
/** When the alarm runs an erasure's next pass (environment-erasure.ts): soon, leaving the shard's calls a moment between passes. */
const ERASE_AGAIN_MS = 100;

/** How far the clock of a consumer recording a trigger may be ahead of its shard's (`indexedCounts`). */
const COUNTS_SKEW_MS = 60_000;

/** What a start brings a shard's tables to: every schema text and upgrade step it runs (schema-version.ts). */
const SHARD_SCHEMA_VERSION = schemaVersion([
  LOG_SCHEMA,
  ROLLUP_SCHEMA,
  ERASED_SCHEMA,
  ERASING_SCHEMA,
  addMissingColumns,
  addMissingFeedColumns,
  addMissingTriggerColumns,
  addColumnsMissingFrom,
  upgradeTriggerIndex,
]);

/** What erasing a subscriber leaves of each of their messages: no address, no content, no error text. */
const REDACTED = `"to" = NULL, subject = NULL, preview = NULL, content = NULL, error_message = NULL`;

/**
 * One shard of the message log: messages, their timelines and providers' message ids, in its own
 * SQLite. Rows are placed by subscriber (a message, its events) or by provider id (a ref), so a
 * subscriber's history, a message and a provider's report each touch one shard. Every write of a
 * delivery phase to this shard arrives as one call and commits as one transaction.
 */
export class LogShard extends DurableObject<Bindings> {
  private readonly sql: SqlStorage;
  private readonly feed: FeedTable;
  /** What the sandbox providers captured of this shard's messages (captures-table.ts). */
  private readonly captures: CapturesTable;
  /** Trigger records, placed by trigger (triggers-table.ts). */
  private readonly triggers: TriggersTable;
  /** Each trigger's messages with their statuses, in the trigger's shard (trigger-index.ts). */
  private readonly index: TriggerIndex;
  /** The D1 halves of the phases written here, until D1 took them (d1-outbox.ts). */
  private readonly outbox: D1Outbox;
  /** Subscribers erased here lately, so a late write for them is redacted (erased.ts). */
  private readonly erased: ErasedSubscribers;
  /** Deleted environments being erased here in bounded passes, or lately, so a late write for them is dropped (environment-erasure.ts). */
  private readonly erasing: ErasingEnvironments;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.prepare();
    this.feed = new FeedTable(this.sql);
    this.captures = new CapturesTable(this.sql);
    this.triggers = new TriggersTable(this.sql);
    this.index = new TriggerIndex(this.sql);
    this.outbox = new D1Outbox(this.sql);
    this.erased = new ErasedSubscribers(this.sql);
    this.erasing = new ErasingEnvironments(this.sql);
  }

  /**
   * The schema, made again after a generation's shard was emptied whole (`deleteAll` drops it,
   * `settings` with it). A start whose code has the version the shard was brought to skips it
   * (schema-version.ts).
   */
  private prepare(): void {
    if (schemaIsCurrent(this.sql, SHARD_SCHEMA_VERSION)) return;
    this.sql.exec(LOG_SCHEMA);
    this.sql.exec(ROLLUP_SCHEMA);
    this.sql.exec(ERASED_SCHEMA);
    this.sql.exec(ERASING_SCHEMA);
    addMissingColumns(this.sql);
    addMissingFeedColumns(this.sql);
    addMissingTriggerColumns(this.sql);
    upgradeTriggerIndex(this.sql);
    // Triggers recorded from now on have their messages indexed here; older ones are counted by fan-out.
    this.sql.exec("INSERT INTO settings (key, value) VALUES ('index_since', ?) ON CONFLICT DO NOTHING", String(Date.now()));
    // Triggers recorded from now on have their messages counted as they are indexed (trigger-index.ts):
    // every trigger when the index holds no row yet (a new shard), none of those it already holds.
    const indexed = this.sql.exec("SELECT 1 FROM trigger_messages LIMIT 1").toArray().length > 0;
    this.sql.exec(
      "INSERT INTO settings (key, value) VALUES ('counts_since', ?) ON CONFLICT DO NOTHING",
      String(indexed ? Date.now() : Number.MIN_SAFE_INTEGER),
    );
    markSchemaCurrent(this.sql, SHARD_SCHEMA_VERSION);
  }

  /**
   * `write` with the rows as JSON text both ways (LogStore's path): a phase's rows are plain data,
   * and JSON crosses the call in about half the CPU of the structured clone of as many objects
   * (50 messages with their timelines, refs and captures: 0.5 ms against 0.9 ms in Node's V8).
   * The outbox's facts carry Dates, which JSON would not give back: they are cloned as before.
   */
  async writeJson(name: string, rows: string, outbox?: LogWrite["outbox"]): Promise<string> {
    const written = JSON.parse(rows) as LogWrite;
    return JSON.stringify(await this.write(name, outbox ? { ...written, outbox } : written));
  }

  /** Applies one phase's rows; a message whose send identity is already stored keeps its row (and id). */
  async write(name: string, written: LogWrite): Promise<LogWritten> {
    const w = this.erasing.dropErased(written);
    const existing: LogWritten["existing"] = [];
    const described: LogWritten["described"] = [];
    const now = Date.now();
    const outbox = this.ctx.storage.transactionSync(() => {
      const inserts = w.inserts ?? [];
      const updates = w.updates ?? [];
      const events = w.events ?? [];
      // The rollups follow each message from how it was to how this write leaves it (rollups/counting.ts).
      // ANALYTICS_ROLLUPS=off is for measuring what they cost (bench:delivery), not for deployments.
      const counting = this.env.ANALYTICS_ROLLUPS !== "off";
      const reached = reachedStates(events);
      // A message this write inserts gets its timeline's states in its row: as the UPDATE after would
      // leave it (a bit OR'ed in either way). One inserted before keeps its row, and the UPDATE (append).
      const rows = inserts.map((m) => messageValues(m, reached.get(m.id)));
      const early = new Set<string>();
      const fresh = this.insert(inserts, rows, existing, early);
      const touched = new Set([...updates.map((u) => u.id), ...events.map((e) => e.messageId)]);
      // The insert adds rows and changes none: a row it did not add is, now, as it was before the
      // write, and one it added was not there. So only the rows the write changes are read.
      const before = counting
        ? snapshots(
            this.sql,
            [...touched].filter((id) => !fresh.has(id)),
          )
        : new Map<string, Snapshot>();
      // New messages whose whole timeline is this write's (all but those with entries stored before
      // their row): their latency is read from the write, not the table (RollupChanges).
      const ownTimes = counting ? sendTimes(new Set([...fresh].filter((id) => !early.has(id))), events) : undefined;
      const storedAs = new Map(existing.map((e) => [e.requested, e.id]));
      this.feed.insertAll((w.feed ?? []).map((f) => ({ ...f, id: storedAs.get(f.id) ?? f.id })));
      this.captures.insert((w.captures ?? []).map((c) => ({ ...c, messageId: storedAs.get(c.messageId) ?? c.messageId })));
      this.append(events, reached, new Set([...fresh, ...this.updateAll(updates, reached)]));
      this.index.apply(w.indexed ?? [], w.indexedStatus ?? []);
      this.addRefs(w.refs ?? [], now);
      const after = new Map<string, Snapshot>();
      if (counting) {
        // In the order the messages came (the errors' example is the last counted): the inserted, then the changed.
        const changing = [...new Set([...inserts.map((m) => m.id), ...touched])].filter((id) => fresh.has(id) || touched.has(id));
        for (const [id, row] of this.snapshotsAfter(changing, fresh, inserts, rows, before, updates, reached)) after.set(id, row);
        const rollups = new RollupChanges(now, ownTimes);
        for (const id of changing) {
          const row = after.get(id);
          if (row) rollups.change(fresh.has(id) ? null : (before.get(id) ?? null), row);
        }
        rollups.apply(this.sql);
      }
      this.redactLate([...fresh, ...updates.map((u) => u.id)]);
      if (w.describe !== false || w.outbox?.facts.length) described.push(...this.describe(touched, after));
      if (!w.outbox) return null;
      // This shard's messages' events, described as this transaction left them.
      const facts = w.outbox.facts.length ? [messageFactStatement(w.outbox.facts, new Map(described.map((d) => [d.id, d])))] : [];
      return this.outbox.store([...w.outbox.statements, ...facts], now);
    });
    await this.armExpiry(name);
    if (outbox) {
      const at = await this.ctx.storage.getAlarm();
      if (at === null || at > now + OUTBOX_GRACE_MS) await this.ctx.storage.setAlarm(now + OUTBOX_GRACE_MS);
    }
    return { existing, described, outbox };
  }

  /**
   * The changed messages as the write left them: made from the values written (an inserted row's,
   * a stored row's with the write's changes and states), and read back only where that is not
   * exact (a reason, which the timeline gives; a value JSON might not carry as is).
   */
  private snapshotsAfter(
    changing: readonly string[],
    fresh: ReadonlySet<string>,
    inserts: readonly LogMessage[],
    rows: readonly MessageRow[],
    before: ReadonlyMap<string, Snapshot>,
    updates: readonly { id: string; changes: MessageChanges }[],
    reached: ReadonlyMap<string, number>,
  ): Map<string, Snapshot> {
    const written = new Map<string, Readonly<MessageRow>>();
    // The first row of an id is the one stored (the insert keeps the first of a conflict).
    inserts.forEach((m, i) => {
      if (!written.has(m.id)) written.set(m.id, rows[i]!);
    });
    const changesOf = Map.groupBy(updates, (u) => u.id);
    const after = new Map<string, Snapshot>();
    const unread: string[] = [];
    for (const id of changing) {
      const base = fresh.has(id) ? insertedSnapshot(written.get(id) ?? []) : (before.get(id) ?? null);
      // Neither stored before nor inserted now: no change or timeline entry makes a message.
      if (!fresh.has(id) && base === null) continue;
      const row =
        base &&
        changedSnapshot(
          base,
          (changesOf.get(id) ?? []).map((u) => u.changes),
          reached.get(id) ?? 0,
        );
      if (row) after.set(id, row);
      else unread.push(id);
    }
    for (const [id, row] of snapshots(this.sql, unread)) after.set(id, row);
    return after;
  }

  /**
   * A write's new messages in one statement; answers the ids it stored, adds to `existing` those
   * whose send identity kept an earlier row (and its id), and to `early` the stored ones with
   * timeline entries from before their row.
   */
  private insert(
    inserts: readonly LogMessage[],
    rows: readonly MessageRow[],
    existing: LogWritten["existing"],
    early: Set<string>,
  ): Set<string> {
    if (inserts.length === 0) return new Set();
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts): messages carry their content.
    const inserted = new Set<string>();
    for (const part of jsonParts(rows))
      for (const row of this.sql.exec<{ id: string; early: number }>(MESSAGES_INSERT, part)) {
        inserted.add(row.id);
        if (row.early) early.add(row.id);
      }
    for (const m of inserts) {
      if (inserted.has(m.id)) continue;
      const [row] = this.sql
        .exec<{ id: string }>(
          "SELECT id FROM messages WHERE env = ? AND tx = ? AND subscriber = ? AND step = ?",
          m.environmentId,
          m.transactionId,
          m.subscriberId,
          m.stepId,
        )
        .toArray();
      if (row && row.id !== m.id) existing.push({ requested: m.id, id: row.id });
    }
    return inserted;
  }

  /**
   * The messages a write touched, as it left them. What the rollups read after the write already
   * describes them; only the others are read (all of them with the rollups off).
   */
  private describe(touched: ReadonlySet<string>, after: ReadonlyMap<string, MessageAboutRecord>): LogWritten["described"] {
    const unread = [...touched].filter((id) => !after.has(id));
    const about = new Map(
      jsonParts(unread).flatMap((part) =>
        this.sql
          .exec<MessageAboutRecord>(`SELECT ${ABOUT_COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`, part)
          .toArray()
          .map((r) => [r.id, r] as const),
      ),
    );
    return [...touched].flatMap((id) => {
      const row = after.get(id) ?? about.get(id);
      return row ? [aboutOf(row)] : [];
    });
  }

  /** Outbox entries whose D1 half the writer ran itself: the alarm has nothing to do for them. */
  async settle(ids: string[]): Promise<void> {
    this.ctx.storage.transactionSync(() => this.outbox.settle(ids));
  }

  /**
   * A write's message changes: one statement per set of changed columns (rows as one JSON array)
   * rather than one per message; a phase's changes mostly share one set. A write that changes a
   * message twice keeps one statement per change, in order, so the later one still wins. The
   * states the write's timeline entries reach on a changed message are set with its change (a
   * row rewritten once, not twice): answers those messages, whose states `append` leaves alone.
   */
  private updateAll(
    updates: readonly { id: string; changes: MessageChanges }[],
    reached: ReadonlyMap<string, number>,
  ): ReadonlySet<string> {
    if (new Set(updates.map((u) => u.id)).size < updates.length) {
      for (const u of updates) this.update(u.id, u.changes);
      return new Set();
    }
    const covered = new Set<string>();
    const shapes = new Map<string, { keys: (keyof MessageChanges)[]; rows: SqlStorageValue[][] }>();
    for (const { id, changes } of updates) {
      const keys = (Object.keys(changes) as (keyof MessageChanges)[]).filter((k) => changes[k] !== undefined).sort();
      if (keys.length === 0) continue;
      const shape = keys.join(",");
      const group = shapes.get(shape) ?? { keys, rows: [] };
      shapes.set(shape, group);
      group.rows.push([id, ...keys.map((k) => stored(changes[k])), (changes.status ? bitOf(changes.status) : 0) | (reached.get(id) ?? 0)]);
      covered.add(id);
    }
    for (const { keys, rows } of shapes.values()) {
      // A new status is a state reached: its bit joins the others, with the timeline's.
      const sets = [
        ...keys.map((k, i) => `${CHANGE_COLUMNS[k]} = s.v ->> ${i + 1}`),
        `states = messages.states | (s.v ->> ${keys.length + 1})`,
      ];
      for (const part of jsonParts(rows))
        this.sql.exec(`${PART_ROWS} UPDATE messages SET ${sets.join(", ")} FROM part AS s WHERE messages.id = s.v ->> 0`, part);
    }
    return covered;
  }

  /** Providers' message ids leading to their messages, in one statement for the write. */
  private addRefs(refs: readonly ProviderRef[], now: number): void {
    // In parts under a Durable Object's 2 MB per string (lib/json-parts.ts), as every list below: one part, one statement.
    for (const part of jsonParts(refs.map((r) => [r.providerMessageId, r.environmentId, r.messageId, now])))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO provider_refs (provider_message_id, env, message_id, created_at)
         SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3 FROM part WHERE true ON CONFLICT DO NOTHING`,
        part,
      );
  }

  private update(id: string, changes: MessageChanges): void {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined) as [keyof MessageChanges, unknown][];
    if (entries.length === 0) return;
    const sets = entries.map(([k]) => `${CHANGE_COLUMNS[k]} = ?`);
    const values = entries.map(([, v]) => stored(v));
    // A new status is a state reached: its bit joins the others.
    if (changes.status) {
      sets.push("states = states | ?");
      values.push(bitOf(changes.status));
    }
    this.sql.exec(`UPDATE messages SET ${sets.join(", ")} WHERE id = ?`, ...values, id);
  }

  /**
   * A write's timeline entries, and the states they reach on their messages: two statements for
   * the write (rows as one JSON array) rather than two per entry; none for the states of messages
   * whose row already has them (`covered`: inserted by this write with them, or changed by
   * `updateAll`). An entry stored before (a retried write) is kept as it was; its state is set
   * again, which changes nothing.
   */
  private append(events: readonly LogEvent[], reached: ReadonlyMap<string, number>, covered: ReadonlySet<string>): void {
    if (events.length === 0) return;
    // The detail as the object: its text is the row's own (lib/json-parts.ts `objectAt`).
    for (const part of jsonParts(events.map((e) => [e.id, e.environmentId, e.messageId, e.status, e.at, e.detail ?? null])))
      this.sql.exec(
        `${PART_ROWS} INSERT INTO message_events (id, env, message_id, status, at, detail)
         SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, ${objectAt(5)} FROM part WHERE true ON CONFLICT DO NOTHING`,
        part,
      );
    // One row per message (a map's entries): parts touch distinct rows.
    for (const part of jsonParts([...reached].filter(([id]) => !covered.has(id))))
      this.sql.exec(`${PART_ROWS} UPDATE messages SET states = states | (s.v ->> 1) FROM part AS s WHERE messages.id = s.v ->> 0`, part);
  }

  /** A page of messages, newest first, below the keyset `before`. */
  async list(f: MessageFilter): Promise<LogMessage[]> {
    const where = ["env = ?"];
    const values: SqlStorageValue[] = [f.environmentId];
    const eq = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      values.push(value);
    };
    eq("subscriber", f.subscriberId);
    eq("tx", f.transactionId);
    eq("workflow", f.workflowKey);
    eq("channel", f.channel);
    eq("status", f.status);
    eq("provider", f.provider);
    eq("tenant", f.tenantId);
    if (f.context) {
      where.push(`json_extract(context, '$."' || ? || '"') = ?`);
      values.push(f.context[0], f.context[1]);
    }
    if (f.since !== undefined) {
      where.push("created_at >= ?");
      values.push(f.since);
    }
    if (f.until !== undefined) {
      where.push("created_at <= ?");
      values.push(f.until);
    }
    if (f.before) {
      where.push("(created_at < ? OR (created_at = ? AND id < ?))");
      values.push(f.before[0], f.before[0], f.before[1]);
    }
    const rows = this.sql
      .exec<MessageRecord>(
        `SELECT * FROM messages WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`,
        ...values,
        f.limit,
      )
      .toArray();
    return rows.map(toMessage);
  }

  /** Messages by id, each with its timeline in order; `null` for any environment (a signed tracking link names only the message). */
  async find(environmentId: string | null, ids: string[]): Promise<{ message: LogMessage; events: LogEvent[] }[]> {
    return ids.flatMap((id) => {
      const [row] = this.sql
        .exec<MessageRecord>("SELECT * FROM messages WHERE id = ? AND (?2 IS NULL OR env = ?2)", id, environmentId)
        .toArray();
      if (!row) return [];
      const events = this.sql
        .exec<EventRecord>("SELECT * FROM message_events WHERE message_id = ? ORDER BY at, id", id)
        .toArray()
        .map(toEvent);
      return [{ message: toMessage(row), events }];
    });
  }

  /**
   * The messages of these (transactionId, subscriberId) pairs: what a redelivered chunk already
   * recorded. One statement for all pairs (each seeks the identity index once), in the pairs' order.
   */
  async ofRecipients(environmentId: string, pairs: [string, string][]): Promise<LogMessage[]> {
    // Parts in the pairs' order, each answering in its own: the whole in the pairs' order.
    return jsonParts(pairs).flatMap((part) =>
      this.sql.exec<MessageRecord>(RECIPIENTS_MESSAGES, part, environmentId).toArray().map(toMessage),
    );
  }

  /**
   * A trigger's messages counted by status, from this shard's index (this must be the trigger's
   * shard); `null` for a trigger recorded before the index was kept here (or not recorded here):
   * the caller counts those over every shard (`counts`).
   */
  async indexedCounts(environmentId: string, transactionId: string): Promise<{ status: string; n: number }[] | null> {
    const [record] = this.triggers.find(environmentId, [transactionId]);
    // Kept counts hold every row of a trigger recorded after they began (trigger-index.ts): its rows
    // came after its record. The margin covers the clocks of the consumer that recorded it and of this shard.
    const since = this.setting("counts_since");
    const kept = record !== undefined && (since === Number.MIN_SAFE_INTEGER || record.createdAt >= since + COUNTS_SKEW_MS);
    const counts = this.index.counts(environmentId, transactionId, kept);
    if (counts.length) return counts;
    return record && record.createdAt >= this.setting("index_since") ? [] : null;
  }

  /** A time this shard keeps in `settings`; NaN when it has none. */
  private setting(key: "index_since" | "counts_since"): number {
    return Number(this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key).toArray()[0]?.value);
  }

  /** A trigger's messages held in this shard, counted by status. */
  async counts(environmentId: string, transactionId: string): Promise<{ status: string; n: number }[]> {
    return this.sql
      .exec<{ status: string; n: number }>(
        "SELECT status, count(*) AS n FROM messages WHERE env = ? AND tx = ? GROUP BY status",
        environmentId,
        transactionId,
      )
      .toArray();
  }

  /**
   * Messages created in [since, until) counted per bucket, group and set of states reached. The
   * CAST: a bound number arrives as a REAL, and `/` would not round down to the bucket.
   */
  async stats(
    environmentId: string,
    since: number,
    until: number,
    size: number,
    groupBy: "channel" | "provider",
    tenantId?: string,
  ): Promise<StatsRow[]> {
    return this.sql
      .exec<{ at: number; grp: string | null; states: number; n: number }>(
        `SELECT CAST(created_at / ? AS INTEGER) * ? AS at, ${groupBy === "channel" ? "channel" : "provider"} AS grp, states, count(*) AS n
         FROM messages WHERE env = ? AND created_at >= ? AND created_at < ? AND (?6 IS NULL OR tenant = ?6) GROUP BY at, grp, states`,
        size,
        size,
        environmentId,
        since,
        until,
        tenantId ?? null,
      )
      .toArray()
      .map((r) => ({ at: r.at, group: r.grp, states: r.states, n: r.n }));
  }

  /** The analytics rollups of one environment over a range: the parts asked for, each summed per bucket (rollups/reads.ts). */
  async analytics(environmentId: string, q: AnalyticsQuery, parts: AnalyticsPartName[], top = 20): Promise<AnalyticsPart> {
    const want = new Set(parts);
    return {
      ...(want.has("counts") ? { counts: readCounts(this.sql, environmentId, q) } : {}),
      ...(want.has("latency") ? { latency: readLatency(this.sql, environmentId, q) } : {}),
      ...(want.has("audience") ? { audience: readAudience(this.sql, environmentId, q) } : {}),
      ...(want.has("errors") ? { errors: readErrors(this.sql, environmentId, q) } : {}),
      ...(want.has("fatigue") ? { fatigue: readFatigue(this.sql, environmentId, q, top) } : {}),
    };
  }

  /** Subscribers' messages on given days (the fatigue rollup), for those whose messages live here. */
  async dayVolumes(environmentId: string, pairs: { subscriberId: string; day: number }[]): Promise<DayVolume[]> {
    return readDayVolumes(this.sql, environmentId, pairs);
  }

  /** Which messages providers' ids name. */
  async refs(providerMessageIds: string[]): Promise<ProviderRef[]> {
    return providerMessageIds.flatMap((p) =>
      this.sql
        .exec<{ env: string; message_id: string }>("SELECT env, message_id FROM provider_refs WHERE provider_message_id = ?", p)
        .toArray()
        .map((r) => ({ providerMessageId: p, environmentId: r.env, messageId: r.message_id })),
    );
  }

  /**
   * Erasure of one subscriber: what their messages said (address, content, errors) and what their
   * timelines quoted goes; status and times stay. Answers the messages redacted and their triggers.
   */
  async eraseSubscriber(environmentId: string, subscriberId: string): Promise<{ redacted: number; transactionIds: string[] }> {
    return this.ctx.storage.transactionSync(() => {
      const transactionIds = this.sql
        .exec<{ tx: string }>("SELECT DISTINCT tx FROM messages WHERE env = ? AND subscriber = ?", environmentId, subscriberId)
        .toArray()
        .map((r) => r.tx);
      this.sql.exec(
        `UPDATE message_events SET detail = NULL WHERE message_id IN (SELECT id FROM messages WHERE env = ? AND subscriber = ?)`,
        environmentId,
        subscriberId,
      );
      const redacted = this.sql.exec(
        `UPDATE messages SET ${REDACTED} WHERE env = ? AND subscriber = ?`,
        environmentId,
        subscriberId,
      ).rowsWritten;
      this.erased.mark(environmentId, subscriberId, Date.now());
      // Their Inbox goes with them: a notification holds the rendered content; so do the sandbox's captures.
      this.feed.eraseSubscriber(environmentId, subscriberId);
      this.captures.eraseSubscriber(environmentId, subscriberId);
      eraseRollupSubscriber(this.sql, environmentId, subscriberId);
      return { redacted, transactionIds };
    });
  }

  /** What erasure removes, from messages this write made or changed for a subscriber erased since they were made (erased.ts). */
  private redactLate(ids: string[]): void {
    const late = this.erased.among(ids);
    if (late.length === 0) return;
    for (const list of jsonParts(late.map((m) => m.id))) {
      this.sql.exec(`UPDATE messages SET ${REDACTED} WHERE id IN (SELECT value FROM json_each(?))`, list);
      this.sql.exec("UPDATE message_events SET detail = NULL WHERE message_id IN (SELECT value FROM json_each(?))", list);
    }
    this.captures.eraseMessages(late.map((m) => m.id));
    for (const { env, subscriber } of new Map(late.map((m) => [`${m.env}\u0000${m.subscriber}`, m])).values()) {
      this.feed.eraseSubscriber(env, subscriber);
      eraseRollupSubscriber(this.sql, env, subscriber);
    }
  }

  /**
   * One bounded pass of a deleted environment's erasure (environment-erasure.ts): its messages,
   * timelines, provider refs, notifications, trigger records and index, and rollups. With rows
   * left, the shard remembers the erasure and its alarm runs the next passes; asking again (a
   * retried job) runs one more pass, which changes nothing once all is gone.
   */
  async eraseEnvironment(environmentId: string): Promise<ErasePass> {
    const now = Date.now();
    const pass = this.ctx.storage.transactionSync(() => this.erasing.pass(environmentId, now));
    if (pass.more) {
      const at = await this.ctx.storage.getAlarm();
      if (at === null || at > now + ERASE_AGAIN_MS) await this.ctx.storage.setAlarm(now + ERASE_AGAIN_MS);
    }
    return pass;
  }

  /** The next pass of each erasure left, the oldest first; stops at the first that has more (one bounded pass per alarm). */
  private eraseNext(now: number): void {
    for (const environmentId of this.erasing.pending())
      if (this.ctx.storage.transactionSync(() => this.erasing.pass(environmentId, now)).more) return;
  }

  /**
   * The outbox first (every entry still there: the writer did not settle it), then expiry when
   * due, then an erasure's next pass; the next alarm is the earliest of the next expiry, while
   * entries are left a retry, and while an erasure is left its next pass.
   */
  override async alarm(): Promise<void> {
    const now = Date.now();
    await this.outbox.send(this.env.DB);
    this.eraseNext(now);
    if (now >= this.expiryDue()) await this.expire(now);
    else await this.schedule(now);
  }

  private expiryDue(): number {
    return Number(this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'expire_at'").toArray()[0]?.value ?? 0);
  }

  private async schedule(now: number): Promise<void> {
    const due = Math.min(
      this.expiryDue(),
      this.outbox.pending > 0 ? now + OUTBOX_RETRY_MS : Number.POSITIVE_INFINITY,
      this.erasing.pending().length > 0 ? now + ERASE_AGAIN_MS : Number.POSITIVE_INFINITY,
    );
    await this.ctx.storage.setAlarm(due);
  }

  /**
   * One expiry pass at `now`: archived first (ARCHIVE_TO_R2, or `archive` from a caller), then
   * deleted. Tests and tools pass a later time instead of waiting for the hourly alarm.
   */
  async expire(now: number, archive = this.env.ARCHIVE_TO_R2 === "true"): Promise<Expired & { more: boolean }> {
    const name = this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'name'").toArray()[0]?.value ?? "unnamed";
    const pass = { shard: name, before: now - logRetention(this.env).ms, maxRows: logRetention(this.env).maxRows };
    // A generation wholly past retention goes in one go, once the archive (read in bounded passes) has it.
    const generation = generationOfShard(name);
    const whole = generation !== null && generation.end <= pass.before && this.outbox.pending === 0 ? generation : null;
    if (whole && !archive) return this.emptyGeneration(now, whole, 0);
    const expired = await archiveAndExpire(this.ctx.storage, archive ? this.env.ARCHIVE : undefined, pass);
    const triggers = await this.triggers.expire(this.ctx.storage, archive ? this.env.ARCHIVE : undefined, pass);
    // Index rows go with the messages they count (by the same age); not archived: the messages are.
    const indexMore = this.index.expire(pass.before, pass.maxRows) === pass.maxRows;
    // Development output, by its own (shorter) age; not archived.
    const capturesMore = this.captures.expire(now - sandboxRetentionMs(this.env), pass.maxRows) === pass.maxRows;
    // Rollups outlive the messages they count (ANALYTICS_RETENTION_DAYS).
    expireRollups(this.sql, now - analyticsRetentionMs(this.env));
    this.erased.prune(now);
    this.erasing.prune(now);
    const more = expired.more || triggers.more || indexMore || capturesMore;
    if (whole && !more) {
      const rest = await this.emptyGeneration(now, whole, expired.archived + triggers.archived);
      return {
        ...rest,
        messages: rest.messages + expired.messages,
        events: rest.events + expired.events,
        refs: rest.refs + expired.refs,
        feed: rest.feed + expired.feed,
        triggers: rest.triggers + triggers.triggers,
      };
    }
    this.sql.exec(
      "INSERT INTO settings (key, value) VALUES ('expire_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      String(now + (more ? 1_000 : EXPIRY_EVERY_MS)),
    );
    await this.schedule(now);
    return { ...expired, triggers: triggers.triggers, archived: expired.archived + triggers.archived, more };
  }

  /**
   * Empties this shard of a generation past retention (expiry.ts `emptyGeneration`): the whole
   * object once its rollups have expired too, and then no alarm is left (a late write arms one
   * again); else its rows, with the next look when the rollups are due.
   */
  private async emptyGeneration(now: number, generation: Generation, archived: number): Promise<Expired & { more: boolean }> {
    const analyticsMs = analyticsRetentionMs(this.env);
    const { deleted, ...gone } = await emptyGeneration(this.ctx.storage, generation.end <= now - analyticsMs);
    if (deleted) {
      this.prepare();
      this.erasing.recount();
      this.named = false;
    } else {
      this.sql.exec(
        "INSERT INTO settings (key, value) VALUES ('expire_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        String(Math.max(now + EXPIRY_EVERY_MS, generation.end + analyticsMs)),
      );
      await this.schedule(now);
    }
    return { ...gone, archived, more: false };
  }

  /** The first write names the shard (for the archive's keys) and arms the expiry alarm. */
  private async armExpiry(name: string): Promise<void> {
    if (this.named) return;
    this.sql.exec("INSERT INTO settings (key, value) VALUES ('name', ?) ON CONFLICT DO NOTHING", name);
    const due = Date.now() + EXPIRY_EVERY_MS;
    this.sql.exec("INSERT INTO settings (key, value) VALUES ('expire_at', ?) ON CONFLICT DO NOTHING", String(due));
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(due);
    this.named = true;
  }
  private named = false;

  /** Sandbox captures of an environment newest first, below the keyset `before`; of one message with `messageId`. */
  async sandboxCaptures(environmentId: string, limit: number, messageId?: string, before?: [number, string]): Promise<LogCapture[]> {
    return this.captures.list(environmentId, limit, messageId, before);
  }

  /** A page of one subscriber's in-app notifications, newest first, below the id `after`. */
  async feedList(environmentId: string, subscriberId: string, filter: FeedFilter, limit: number, after?: string): Promise<FeedRow[]> {
    return this.feed.list(environmentId, subscriberId, filter, limit, after);
  }

  async feedCounts(environmentId: string, subscriberId: string, filter: FeedFilter): Promise<FeedCounts> {
    return this.feed.counts(environmentId, subscriberId, filter);
  }

  async feedUpdate(environmentId: string, subscriberId: string, change: FeedChange, filter: FeedFilter, now: number): Promise<string[]> {
    return this.feed.update(environmentId, subscriberId, change, filter, now);
  }

  async feedUpdateOne(
    environmentId: string,
    subscriberId: string,
    id: string,
    change: FeedChange,
    now: number,
    within?: Pick<FeedFilter, "context" | "tenantId">,
  ): Promise<FeedRow | null> {
    return this.feed.updateOne(environmentId, subscriberId, id, change, now, within);
  }

  async feedRemove(environmentId: string, subscriberId: string, filter: FeedFilter): Promise<string[]> {
    return this.feed.remove(environmentId, subscriberId, filter);
  }

  /** Stores notifications outside a delivery phase's write (a retried send of a message recorded in D1); answers the new ones' ids. */
  async feedInsert(name: string, rows: FeedRow[]): Promise<string[]> {
    const kept = this.erasing.dropErased({ feed: rows }).feed ?? [];
    const inserted = this.ctx.storage.transactionSync(() => this.feed.insertAll(kept));
    await this.armExpiry(name);
    return inserted;
  }

  // Trigger records (triggers-table.ts).

  /** Records triggers in one transaction; answers each as left (none unless `answer`: sending records back costs). */
  async writeTriggers(name: string, written: LogTrigger[], answer = true): Promise<LogTrigger[]> {
    const gone = this.erasing.among(written.map((t) => t.environmentId));
    const rows = gone.size ? written.filter((t) => !gone.has(t.environmentId)) : written;
    const left = this.ctx.storage.transactionSync(() => {
      // A trigger is counted once, when first recorded (before the upsert): a replay or a status change upserts it again.
      countNewTriggers(this.sql, rows);
      return this.triggers.upsert(rows, answer);
    });
    await this.armExpiry(name);
    return left;
  }

  async finishTriggers(keys: TriggerKey[], status: "completed" | "failed", now: number): Promise<FinishedTrigger[]> {
    return this.ctx.storage.transactionSync(() => this.triggers.finish(keys, status, now));
  }

  async findTriggers(environmentId: string, transactionIds: string[]): Promise<LogTrigger[]> {
    return this.triggers.find(environmentId, transactionIds);
  }

  async listTriggers(filter: TriggerFilter): Promise<LogTrigger[]> {
    return this.triggers.list(filter);
  }

  async lastTriggered(environmentId: string, workflowKeys: string[]): Promise<{ workflowKey: string; at: number }[]> {
    return this.triggers.lastTriggered(environmentId, workflowKeys);
  }

  async unfinishedTriggers(environmentId: string, tombstones: [string, number][]): Promise<string[]> {
    return this.triggers.unfinished(environmentId, tombstones);
  }

  async eraseTriggerSubject(environmentId: string, subscriberId: string, transactionIds: string[]): Promise<number> {
    return this.ctx.storage.transactionSync(() => this.triggers.erase(environmentId, subscriberId, transactionIds));
  }
}
