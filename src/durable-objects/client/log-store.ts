import type { SerializedStatement } from "../../db/batch";
import type { MessageFact } from "../../db/queries/fact-events";
import type { Bindings } from "../../env";
import type { MessageReached } from "../ledger/signals";
import { TriggerStore } from "./trigger-store";
import { eraseEnvironmentJobs, SHARDS_PER_ERASE_JOB } from "../../jobs/job";
import { sendPacked } from "../../jobs/pack";
import { deliveryQueueFor } from "../../jobs/queues";
import { compareCodePoints } from "../../lib/code-point-order";
import { newestFirst } from "../../lib/newest-first";
import { partitionOfId, timeOfId } from "../../lib/ids";
import { logRetention, sandboxRetentionMs } from "../log/expiry";
import { analyticsRetentionMs } from "../log/rollups/upkeep";
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
  MessageAbout,
  MessageChanges,
  MessageFilter,
  ProviderRef,
  StatsRow,
} from "../log/rows";
import { mergeAnalytics } from "../log/rollups/merge";
import type { AnalyticsPart, AnalyticsPartName, AnalyticsQuery, DayVolume } from "../log/rollups/rows";
import type { ErasePass } from "../log/environment-erasure";
import { indexedOf } from "../log/rows";
import type { IndexKey } from "../log/trigger-index";
import type { FinishedTrigger, LogTrigger, TriggerFilter, TriggerKey } from "../log/triggers-table";
import {
  GENERATION_SKEW_MS,
  type Generation,
  allLogShards,
  generationAt,
  generationDays,
  generationsWithin,
  logShardFor,
  logShardsFor,
  providerPartition,
  type ShardSlice,
  shardSlices,
  shardsOfSlice,
  subscriberPartition,
  triggerPartition,
} from "./log-naming";

export type {
  Expired,
  LogCapture,
  FeedChange,
  FeedCounts,
  FeedFilter,
  FeedRow,
  LogEvent,
  LogMessage,
  LogWrite,
  MessageAbout,
  MessageChanges,
  MessageFilter,
  ProviderRef,
  StatsRow,
} from "../log/rows";
export type { FinishedTrigger, LogTrigger, TriggerFilter, TriggerKey } from "../log/triggers-table";
export type { IndexKey } from "../log/trigger-index";
export type {
  AnalyticsPart,
  AnalyticsPartName,
  AnalyticsQuery,
  AudienceRow,
  CountRow,
  DayVolume,
  ErrorGroupRow,
  FatigueSummary,
  LatencyRow,
} from "../log/rollups/rows";
export { DAY_MS, HOUR_MS, LATENCY_BUCKETS_MS } from "../log/rollups/rows";

/** Where a phase's D1 half is kept until D1 takes it: a shard and its outbox entry. */
export type OutboxEntry = { shard: string; id: string };

const byIdNewestFirst = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The time that places a row named by this id (its generation's); now for an id without one. */
const placedAt = (id: string) => timeOfId(id) ?? Date.now();

/** Adds `item` to the list kept under `key`. */
const push = <K, V>(map: Map<K, V[]>, key: K, item: V) => {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
};

/** One shard's rows of a batch: every list, even empty. */
type ShardRows = Required<Omit<LogWrite, "describe">>;

/**
 * Rows for the log gathered over one phase and sent as one call per shard. A row goes where its
 * id's partition says; an id without one names a message from before the log left D1, which the
 * caller writes there (`legacy`).
 */
export class LogBatch {
  private readonly byShard = new Map<string, ShardRows>();
  readonly legacy: { updates: { id: string; changes: MessageChanges }[]; events: LogEvent[] } = { updates: [], events: [] };

  constructor(private readonly env: Bindings) {}

  /** The write to the shard of this partition in the generation of `time` (ignored without generations). */
  private at(partition: number, time: number): ShardRows {
    const name = logShardFor(this.env, partition, time);
    let w = this.byShard.get(name);
    if (!w) {
      w = {
        inserts: [],
        updates: [],
        events: [],
        refs: [],
        feed: [],
        captures: [],
        indexed: [],
        indexedStatus: [],
        outbox: { statements: [], facts: [] },
      };
      this.byShard.set(name, w);
    }
    return w;
  }

  insert(message: LogMessage): void {
    const partition = partitionOfId(message.id);
    if (partition === null) throw new Error(`log message id without a partition: ${message.id}`);
    const time = placedAt(message.id);
    this.at(partition, time).inserts.push(message);
    // Its trigger's index: in the same call when the trigger's shard is the message's, else in the
    // phase's call to the trigger's shard (one more shard in the phase at most per trigger). With
    // generations, in the message's generation: a status change by id finds it there.
    this.at(triggerPartition(message.environmentId, message.transactionId), time).indexed.push(indexedOf(message));
  }

  /** A change to a message; a new status also reaches its trigger's index (`message`: its trigger and send identity, the index's key). */
  update(id: string, changes: MessageChanges, message: IndexKey): void {
    const partition = partitionOfId(id);
    if (partition === null) {
      this.legacy.updates.push({ id, changes });
      return;
    }
    const time = placedAt(id);
    this.at(partition, time).updates.push({ id, changes });
    if (changes.status)
      this.at(triggerPartition(message.environmentId, message.transactionId), time).indexedStatus.push({
        environmentId: message.environmentId,
        transactionId: message.transactionId,
        subscriberId: message.subscriberId,
        stepId: message.stepId,
        messageId: id,
        status: changes.status,
      });
  }

  event(event: LogEvent): void {
    const partition = partitionOfId(event.messageId);
    if (partition === null) this.legacy.events.push(event);
    else this.at(partition, placedAt(event.messageId)).events.push(event);
  }

  /** Where a provider's report of `providerMessageId` finds the message: in the generation of the send (its message's). */
  ref(ref: ProviderRef): void {
    this.at(providerPartition(ref.providerMessageId), placedAt(ref.messageId)).refs.push(ref);
  }

  /** An in-app notification: in its subscriber's shard, with its message. */
  feed(row: FeedRow): void {
    this.at(subscriberPartition(row.environmentId, row.subscriberId), placedAt(row.id)).feed.push(row);
  }

  /**
   * A sandbox capture: in its message's shard, written with it. One of a message recorded in D1
   * before the log left it (an id without a partition) is not the log's: MessageWrites keeps it in D1.
   */
  capture(capture: LogCapture): void {
    const partition = partitionOfId(capture.messageId);
    if (partition !== null) this.at(partition, placedAt(capture.messageId)).captures.push(capture);
  }

  /**
   * The phase's D1 half, kept by the shards with the rows (d1-outbox.ts): each message's facts in
   * its own shard, which describes them; the statements that need no description in the first
   * shard of the phase. A phase that writes no log row keeps none (it has no shard to keep it).
   */
  outbox(statements: SerializedStatement[], facts: MessageFact[]): void {
    if (this.byShard.size === 0) return;
    for (const f of facts) {
      const partition = partitionOfId(f.messageId);
      if (partition !== null) this.at(partition, placedAt(f.messageId)).outbox.facts.push(f);
    }
    this.byShard
      .values()
      .next()
      .value?.outbox.statements.push(...statements);
  }

  get shards(): number {
    return this.byShard.size;
  }

  /** Whether the writer reads the touched messages' descriptions back (`LogWrite.describe`). */
  private describing = true;

  /** The writer needs no description of the messages back: the shards answer none (their outbox's facts aside). */
  describeNothing(): void {
    this.describing = false;
  }

  entries(): [string, LogWrite][] {
    return this.describing ? [...this.byShard] : [...this.byShard].map(([name, w]) => [name, { ...w, describe: false }]);
  }
}

/**
 * The one way into the log shards: it owns their names and placement, sends a phase's rows as one
 * call per shard, and fans reads out to the shards that may hold the answer, merging by time.
 *
 * With generations (`LOG_GENERATION_DAYS`, log-naming.ts) a read by id goes to its id's
 * generation; a page newest first walks the generations newest to oldest from its cursor's and
 * stops once full; counts and erasure reach every generation retention keeps, in parallel.
 */
export class LogStore {
  constructor(private readonly env: Bindings) {}

  private shard(name: string) {
    return this.env.LOGS.get(this.env.LOGS.idFromName(name));
  }

  /** The generations that may hold messages of [since, until], newest first (the flat layout's one without generations). */
  private generations(since?: number, until?: number, keptMs = logRetention(this.env).ms): Generation[] {
    return generationsWithin(this.env, Date.now(), keptMs, since, until);
  }

  /** Every generation that may still hold a row of any kind: rollups outlive the messages (ANALYTICS_RETENTION_DAYS). */
  private everyGeneration(): Generation[] {
    return this.generations(undefined, undefined, Math.max(logRetention(this.env).ms, analyticsRetentionMs(this.env)));
  }

  /** The generations of these ids (each id's own), newest first. */
  private generationsOf(ids: readonly string[]): Generation[] {
    const byPrefix = new Map(ids.map((id) => generationAt(this.env, placedAt(id))).map((g) => [g.prefix, g]));
    return [...byPrefix.values()].sort((a, b) => b.start - a.start);
  }

  /**
   * A page newest first over generations: each generation's shards asked at once (`ask`), the
   * rows merged; the walk stops when the page is full and its last row sorts before anything an
   * older generation can hold (rows placed before this one's start, give or take the skew).
   */
  private async walk<T>(
    generations: Generation[],
    limit: number,
    ask: (g: Generation) => Promise<T[][]>,
    order: (a: T, b: T) => number,
    timeOf: (row: T) => number,
  ): Promise<T[]> {
    let rows: T[] = [];
    for (const g of generations) {
      rows = [...rows, ...(await ask(g)).flat()].sort(order);
      if (rows.length >= limit && timeOf(rows[limit - 1]!) >= g.start + GENERATION_SKEW_MS) break;
    }
    return rows.slice(0, limit);
  }

  /**
   * Statuses reached by messages a wait watches (`watched`), sent to their triggers' homes, which
   * end the waits they match (ledger/signals.ts): one call per trigger, none for other messages.
   */
  async wakeWaits(reached: (MessageReached & { environmentId: string; transactionId: string })[]): Promise<void> {
    const store = new TriggerStore(this.env);
    const byTrigger = Map.groupBy(reached, (r) => `${r.environmentId}\u0000${r.transactionId}`);
    await Promise.all(
      [...byTrigger.values()].map((group) =>
        store.messagesReached(
          group[0]!.environmentId,
          group[0]!.transactionId,
          group.map(({ subscriberId, stepId, status }) => ({ subscriberId, stepId, status })),
        ),
      ),
    );
  }

  batch(): LogBatch {
    return new LogBatch(this.env);
  }

  /**
   * Writes a batch, all shards at once. Answers which inserted send identities already had a
   * message (the id asked for → the stored one) and the messages the batch touched, as left.
   */
  async write(batch: LogBatch): Promise<{ existing: Map<string, string>; described: Map<string, MessageAbout>; outbox: OutboxEntry[] }> {
    const entries = batch.entries();
    const answers = await Promise.all(
      entries.map(
        async ([name, { outbox, ...rows }]) =>
          JSON.parse(await this.shard(name).writeJson(name, JSON.stringify(rows), outbox)) as LogWritten,
      ),
    );
    return {
      existing: new Map(answers.flatMap((a) => a.existing.map((e) => [e.requested, e.id] as const))),
      described: new Map(answers.flatMap((a) => a.described.map((d) => [d.id, d] as const))),
      outbox: answers.flatMap((a, i) => (a.outbox ? [{ shard: entries[i]![0], id: a.outbox }] : [])),
    };
  }

  /** Outbox entries whose D1 half D1 took from the writer: one call per shard, so their alarms do not run them again. */
  async settle(entries: readonly OutboxEntry[]): Promise<void> {
    await Promise.all([...Map.groupBy(entries, (e) => e.shard)].map(([name, some]) => this.shard(name).settle(some.map((e) => e.id))));
  }

  /**
   * A page of messages newest first (`limit` rows at most): one shard per generation for a
   * subscriber's, else every shard of a generation asked at once for its own first `limit`,
   * merged by time; generations newest first from the cursor's until the page is full.
   */
  async list(filter: MessageFilter): Promise<LogMessage[]> {
    const until = filter.before ? Math.min(filter.before[0], filter.until ?? Number.POSITIVE_INFINITY) : filter.until;
    return this.walk(
      this.generations(filter.since, until),
      filter.limit,
      (g) => {
        const names =
          filter.subscriberId !== undefined
            ? logShardsFor(this.env, subscriberPartition(filter.environmentId, filter.subscriberId), g)
            : allLogShards(this.env, g);
        return Promise.all(names.map((name) => this.shard(name).list(filter)));
      },
      newestFirst,
      (m) => m.createdAt,
    );
  }

  /**
   * Sandbox captures newest first (`limit` at most): of one message from its shard, else every
   * shard of a generation asked at once, merged by time, generations newest first until full.
   */
  async captures(environmentId: string, limit: number, messageId?: string, before?: [number, string]): Promise<LogCapture[]> {
    const partition = messageId === undefined ? null : partitionOfId(messageId);
    if (messageId !== undefined) {
      if (partition === null) return [];
      const names = logShardsFor(this.env, partition, generationAt(this.env, placedAt(messageId)));
      const found = await Promise.all(names.map((name) => this.shard(name).sandboxCaptures(environmentId, limit, messageId)));
      return found.flat().sort(newestFirst).slice(0, limit);
    }
    return this.walk(
      this.generations(undefined, before?.[0], Math.min(sandboxRetentionMs(this.env), logRetention(this.env).ms)),
      limit,
      (g) =>
        Promise.all(allLogShards(this.env, g).map((name) => this.shard(name).sandboxCaptures(environmentId, limit, undefined, before))),
      newestFirst,
      (c) => c.createdAt,
    );
  }

  /** Messages by id with their timelines (ids made before the log left D1 are not here); `null`: of any environment. */
  async find(environmentId: string | null, ids: string[]): Promise<{ message: LogMessage; events: LogEvent[] }[]> {
    const byShard = new Map<string, string[]>();
    for (const id of ids) {
      const partition = partitionOfId(id);
      if (partition === null) continue;
      for (const name of logShardsFor(this.env, partition, generationAt(this.env, placedAt(id)))) push(byShard, name, id);
    }
    const found = await Promise.all([...byShard].map(([name, some]) => this.shard(name).find(environmentId, some)));
    return found.flat();
  }

  /** What a redelivered chunk already recorded for these (transactionId, subscriberId) pairs: every generation kept. */
  async ofRecipients(environmentId: string, pairs: [string, string][], since?: number): Promise<LogMessage[]> {
    const byShard = new Map<string, [string, string][]>();
    // `since`: the earliest acceptance of the pairs' triggers; their messages are made after it, so older generations hold none.
    for (const g of this.generations(since))
      for (const pair of pairs)
        for (const name of logShardsFor(this.env, subscriberPartition(environmentId, pair[1]), g)) push(byShard, name, pair);
    const found = await Promise.all([...byShard].map(([name, some]) => this.shard(name).ofRecipients(environmentId, some)));
    return found.flat();
  }

  /**
   * A trigger's messages counted by status: from its own shard's index (one call), or, for a
   * trigger recorded before the index was kept, over every shard (its recipients may be anywhere).
   * With generations, the trigger's shard of each generation from `acceptedAt` (its messages are
   * made after it; every one kept when unknown), summed: those shards were all made with the index.
   */
  async counts(environmentId: string, transactionId: string, acceptedAt?: number): Promise<Map<string, number>> {
    const partition = triggerPartition(environmentId, transactionId);
    const byStatus = new Map<string, number>();
    const add = (rows: { status: string; n: number }[]) => {
      for (const { status, n } of rows) byStatus.set(status, (byStatus.get(status) ?? 0) + n);
    };
    if (generationDays(this.env) > 0) {
      const names = this.generations(acceptedAt).flatMap((g) => logShardsFor(this.env, partition, g));
      for (const rows of await Promise.all(names.map((name) => this.shard(name).indexedCounts(environmentId, transactionId))))
        add(rows ?? []);
      return byStatus;
    }
    const [current, ...previous] = logShardsFor(this.env, partition);
    // A previous layout's shard may hold the trigger's record: its messages then predate the index's layout.
    const indexed = previous.length === 0 && current ? await this.shard(current).indexedCounts(environmentId, transactionId) : null;
    if (indexed) return new Map(indexed.map(({ status, n }) => [status, n]));
    add((await Promise.all(allLogShards(this.env).map((name) => this.shard(name).counts(environmentId, transactionId)))).flat());
    return byStatus;
  }

  /** Messages counted per bucket, group and set of states reached, summed over every shard of the generations of [since, until). */
  async stats(
    environmentId: string,
    since: number,
    until: number,
    size: number,
    groupBy: "channel" | "provider",
    tenantId?: string,
  ): Promise<StatsRow[]> {
    const all = await Promise.all(
      this.generations(since, until)
        .flatMap((g) => allLogShards(this.env, g))
        .map((name) => this.shard(name).stats(environmentId, since, until, size, groupBy, tenantId)),
    );
    const merged = new Map<string, StatsRow>();
    for (const row of all.flat()) {
      const key = JSON.stringify([row.at, row.group, row.states]);
      const seen = merged.get(key);
      if (seen) seen.n += row.n;
      else merged.set(key, { ...row });
    }
    return [...merged.values()];
  }

  /**
   * The analytics rollups of an environment: every shard in parallel, summed (rollups/merge.ts).
   * Each shard's rollup rows are few per hour, so no message is read. With generations, those of
   * the query's range (rollups stay in their generation's shards for ANALYTICS_RETENTION_DAYS).
   */
  async analytics(environmentId: string, q: AnalyticsQuery, parts: AnalyticsPartName[], top = 20): Promise<AnalyticsPart> {
    const names = this.generations(q.since, q.until, analyticsRetentionMs(this.env)).flatMap((g) => allLogShards(this.env, g));
    const all = await Promise.all(names.map((name) => this.shard(name).analytics(environmentId, q, parts, top)));
    return mergeAnalytics(all, top);
  }

  /** Subscribers' messages on given days, from the shards of their partitions (in the generations of those days). */
  async dayVolumes(environmentId: string, pairs: { subscriberId: string; day: number }[]): Promise<DayVolume[]> {
    const byShard = new Map<string, { subscriberId: string; day: number }[]>();
    for (const p of pairs)
      for (const g of this.generations(p.day, p.day + 86_400_000, analyticsRetentionMs(this.env)))
        for (const name of logShardsFor(this.env, subscriberPartition(environmentId, p.subscriberId), g)) push(byShard, name, p);
    const found = await Promise.all([...byShard].map(([name, some]) => this.shard(name).dayVolumes(environmentId, some)));
    const summed = new Map<string, DayVolume>();
    for (const v of found.flat()) {
      const key = JSON.stringify([v.subscriberId, v.day]);
      const seen = summed.get(key);
      if (seen) seen.messages += v.messages;
      else summed.set(key, { ...v });
    }
    return [...summed.values()];
  }

  /** The messages providers' ids name: every generation kept at once (a report names no time), newest first. */
  async refs(providerMessageIds: string[]): Promise<ProviderRef[]> {
    const byShard = new Map<string, string[]>();
    for (const g of this.generations())
      for (const id of providerMessageIds) for (const name of logShardsFor(this.env, providerPartition(id), g)) push(byShard, name, id);
    const found = await Promise.all([...byShard].map(([name, some]) => this.shard(name).refs(some)));
    return found.flat();
  }

  /** Erasure reaches the shards of the subscriber's partition only: one per layout and generation. */
  async eraseSubscriber(environmentId: string, subscriberId: string): Promise<{ redacted: number; transactionIds: string[] }> {
    const partition = subscriberPartition(environmentId, subscriberId);
    const all = await Promise.all(
      this.everyGeneration()
        .flatMap((g) => logShardsFor(this.env, partition, g))
        .map((name) => this.shard(name).eraseSubscriber(environmentId, subscriberId)),
    );
    return { redacted: all.reduce((n, a) => n + a.redacted, 0), transactionIds: [...new Set(all.flatMap((a) => a.transactionIds))] };
  }

  /** Every shard of every generation that may hold a row. */
  private everyShard(): string[] {
    return this.everyGeneration().flatMap((g) => allLogShards(this.env, g));
  }

  /**
   * Enqueues a deleted environment's erasure from the log: one job per slice of
   * SHARDS_PER_ERASE_JOB shards of every generation, packed (jobs/pack.ts), so even 1.6 million
   * shards are a few dozen Queue messages from the request. Answers the jobs.
   */
  async queueEnvironmentErasure(environmentId: string): Promise<number> {
    const jobs = eraseEnvironmentJobs(environmentId, shardSlices(this.env, this.everyGeneration(), SHARDS_PER_ERASE_JOB));
    await sendPacked(deliveryQueueFor(this.env, environmentId), jobs);
    return jobs.length;
  }

  /**
   * A deleted environment's erasure on these shards (every shard by default): one bounded pass on
   * each, which goes on by itself in the shard's alarm while rows are left (log/environment-erasure.ts).
   * Answers what the passes deleted, and `more` when a shard has rows left.
   */
  async eraseEnvironment(environmentId: string, slice?: ShardSlice): Promise<ErasePass> {
    const names = slice ? shardsOfSlice(slice) : this.everyShard();
    const all = await Promise.all(names.map((name) => this.shard(name).eraseEnvironment(environmentId)));
    const sum: ErasePass = { messages: 0, triggers: 0, more: false };
    for (const a of all)
      Object.assign(sum, { messages: sum.messages + a.messages, triggers: sum.triggers + a.triggers, more: sum.more || a.more });
    return sum;
  }

  /**
   * One expiry pass on every shard at `now` (the shards run their own hourly; tests and `clarion`
   * tools call this): with generations, those retention keeps and the one before.
   */
  async expire(now: number): Promise<Expired> {
    const days = generationDays(this.env);
    const names = generationsWithin(this.env, now, logRetention(this.env).ms + days * 86_400_000).flatMap((g) => allLogShards(this.env, g));
    const all = await Promise.all(names.map((name) => this.shard(name).expire(now)));
    return all.reduce(
      (sum, e) => ({
        messages: sum.messages + e.messages,
        events: sum.events + e.events,
        refs: sum.refs + e.refs,
        feed: sum.feed + e.feed,
        triggers: sum.triggers + e.triggers,
        archived: sum.archived + e.archived,
      }),
      { messages: 0, events: 0, refs: 0, feed: 0, triggers: 0, archived: 0 },
    );
  }

  /**
   * The shards that may hold a subscriber's notifications: their partition's, in the current
   * layout and the previous one, in the generations given (every one kept by default, or those of
   * the ids the filter names).
   */
  private feedShards(environmentId: string, subscriberId: string, filter: FeedFilter = {}, generations?: Generation[]) {
    const partition = subscriberPartition(environmentId, subscriberId);
    const gens = generations ?? (filter.ids ? this.generationsOf(filter.ids) : this.generations());
    return gens.flatMap((g) => logShardsFor(this.env, partition, g)).map((name) => ({ name, shard: this.shard(name) }));
  }

  /**
   * A page of a subscriber's notifications, newest first (by id, which is time-ordered), below
   * `after`: at most `limit`. With generations, newest first from the cursor's until full.
   */
  async feedList(environmentId: string, subscriberId: string, filter: FeedFilter, limit: number, after?: string): Promise<FeedRow[]> {
    const ask = (g?: Generation) =>
      Promise.all(
        this.feedShards(environmentId, subscriberId, filter, g && [g]).map(({ shard }) =>
          shard.feedList(environmentId, subscriberId, filter, limit, after),
        ),
      );
    if (filter.ids) return (await ask()).flat().sort(byIdNewestFirst).slice(0, limit);
    const until = after === undefined ? filter.createdLte : Math.min(placedAt(after), filter.createdLte ?? Number.POSITIVE_INFINITY);
    return this.walk(this.generations(filter.createdGte, until), limit, ask, byIdNewestFirst, (r) => placedAt(r.id));
  }

  async feedCounts(environmentId: string, subscriberId: string, filter: FeedFilter): Promise<FeedCounts> {
    const all = await Promise.all(
      this.feedShards(environmentId, subscriberId, filter).map(({ shard }) => shard.feedCounts(environmentId, subscriberId, filter)),
    );
    return all.reduce(
      (sum, c) => ({
        total: sum.total + c.total,
        unread: sum.unread + c.unread,
        unseen: sum.unseen + c.unseen,
        archived: sum.archived + c.archived,
      }),
      { total: 0, unread: 0, unseen: 0, archived: 0 },
    );
  }

  /** Changes a subscriber's notifications that the filter matches; answers their ids. */
  async feedUpdate(environmentId: string, subscriberId: string, change: FeedChange, filter: FeedFilter, now: number): Promise<string[]> {
    const all = await Promise.all(
      this.feedShards(environmentId, subscriberId, filter).map(({ shard }) =>
        shard.feedUpdate(environmentId, subscriberId, change, filter, now),
      ),
    );
    return all.flat();
  }

  /** Changes one of a subscriber's notifications; answers it as changed, or null when they have no such notification. */
  async feedUpdateOne(
    environmentId: string,
    subscriberId: string,
    id: string,
    change: FeedChange,
    now: number,
    within?: Pick<FeedFilter, "context" | "tenantId">,
  ): Promise<FeedRow | null> {
    const all: (FeedRow | null)[] = await Promise.all(
      this.feedShards(environmentId, subscriberId, { ids: [id] }).map(({ shard }) =>
        shard.feedUpdateOne(environmentId, subscriberId, id, change, now, within),
      ),
    );
    return all.find((row) => row !== null) ?? null;
  }

  /** Deletes a subscriber's notifications that the filter matches; answers their ids. */
  async feedRemove(environmentId: string, subscriberId: string, filter: FeedFilter): Promise<string[]> {
    const all = await Promise.all(
      this.feedShards(environmentId, subscriberId, filter).map(({ shard }) => shard.feedRemove(environmentId, subscriberId, filter)),
    );
    return all.flat();
  }

  /** Stores notifications outside a delivery phase's write, each in its subscriber's shard (of its id's generation); answers the new ones' ids. */
  async feedInsert(rows: FeedRow[]): Promise<string[]> {
    const byShard = Map.groupBy(rows, (r) => logShardFor(this.env, subscriberPartition(r.environmentId, r.subscriberId), placedAt(r.id)));
    const all = await Promise.all([...byShard].map(([name, some]) => this.shard(name).feedInsert(name, some)));
    return all.flat();
  }

  // Trigger records, placed by trigger (`triggerPartition`) and, with generations, by their
  // acceptance: one trigger's read touches one shard per generation asked.

  /** Groups transactionIds by the shards of these generations that may hold them. */
  private triggerShards(environmentId: string, transactionIds: string[], generations: Generation[]): Map<string, string[]> {
    const byShard = new Map<string, string[]>();
    for (const g of generations)
      for (const tx of transactionIds)
        for (const name of logShardsFor(this.env, triggerPartition(environmentId, tx), g)) push(byShard, name, tx);
    return byShard;
  }

  /**
   * Records triggers (a terminal status is never replaced), one call per shard; answers each as
   * left, or nothing without `answer` (delivery's records: sending them back is CPU for nothing).
   * A record goes to the generation of its acceptance, so a redelivered job writes the same one.
   */
  async recordTriggers(rows: LogTrigger[], answer = true): Promise<LogTrigger[]> {
    const byShard = Map.groupBy(rows, (row) =>
      logShardFor(this.env, triggerPartition(row.environmentId, row.transactionId), row.acceptedAt),
    );
    const left = await Promise.all([...byShard].map(([name, some]) => this.shard(name).writeTriggers(name, some, answer)));
    return left.flat();
  }

  /**
   * Moves triggers to a terminal status unless they have one. Answers the records the log holds,
   * as left, and the keys it holds none of: triggers recorded in D1 before the log took them.
   * With generations a finish names no acceptance time: the current generation is asked first
   * (where a trigger that ends soon after it began is), the other kept ones only for the rest.
   */
  async finishTriggers(
    items: (TriggerKey & { status: "completed" | "failed" })[],
    now: number,
  ): Promise<{ finished: FinishedTrigger[]; legacy: (TriggerKey & { status: "completed" | "failed" })[] }> {
    const finish = async (some: typeof items, generations: Generation[]) => {
      const calls: Promise<FinishedTrigger[]>[] = [];
      for (const [status, group] of Map.groupBy(some, (i) => i.status))
        for (const [environmentId, ofEnv] of Map.groupBy(group, (i) => i.environmentId))
          for (const [name, txs] of this.triggerShards(
            environmentId,
            ofEnv.map((i) => i.transactionId),
            generations,
          ))
            calls.push(
              this.shard(name).finishTriggers(
                txs.map((transactionId) => ({ environmentId, transactionId })),
                status,
                now,
              ),
            );
      return (await Promise.all(calls)).flat();
    };
    const key = (t: TriggerKey) => `${t.environmentId}\n${t.transactionId}`;
    const [newest, ...older] = this.generations(undefined, now);
    const found = await finish(items, newest ? [newest] : []);
    const held = new Set(found.map(key));
    const rest = items.filter((i) => !held.has(key(i)));
    if (rest.length && older.length) for (const t of await finish(rest, older)) if (!held.has(key(t)) && held.add(key(t))) found.push(t);
    return { finished: found, legacy: items.filter((i) => !held.has(key(i))) };
  }

  /** Trigger records by transactionId (each once: the newest generation's, the current layout's first). */
  async findTriggers(environmentId: string, transactionIds: string[]): Promise<LogTrigger[]> {
    const byShard = this.triggerShards(environmentId, [...new Set(transactionIds)], this.generations());
    const found = (await Promise.all([...byShard].map(([name, txs]) => this.shard(name).findTriggers(environmentId, txs)))).flat();
    const seen = new Set<string>();
    return found.filter((t) => !seen.has(t.transactionId) && seen.add(t.transactionId));
  }

  /**
   * A page of triggers newest first by (acceptedAt, transactionId): only the shards of the
   * transactionIds asked for when the filter names them, else every shard, merged; with
   * generations, newest first from the cursor's until the page is full.
   */
  async listTriggers(filter: TriggerFilter): Promise<LogTrigger[]> {
    const order = (a: LogTrigger, b: LogTrigger) => b.acceptedAt - a.acceptedAt || compareCodePoints(b.transactionId, a.transactionId);
    const until = filter.before ? Math.min(filter.before[0], filter.until ?? Number.POSITIVE_INFINITY) : filter.until;
    const generations = this.generations(filter.since, until);
    const ask = (gens: Generation[]) =>
      Promise.all(
        filter.transactionIds !== undefined
          ? [...this.triggerShards(filter.environmentId, filter.transactionIds, gens)].map(([name, txs]) =>
              this.shard(name).listTriggers({ ...filter, transactionIds: txs }),
            )
          : gens.flatMap((g) => allLogShards(this.env, g)).map((name) => this.shard(name).listTriggers(filter)),
      );
    const page =
      filter.transactionIds !== undefined
        ? (await ask(generations)).flat().sort(order)
        : await this.walk(
            generations,
            filter.limit,
            (g) => ask([g]),
            order,
            (t) => t.acceptedAt,
          );
    const seen = new Set<string>();
    return page.filter((t) => !seen.has(t.transactionId) && seen.add(t.transactionId)).slice(0, filter.limit);
  }

  /** The newest acceptance of each workflow key, over every shard. */
  async lastTriggered(environmentId: string, workflowKeys: string[]): Promise<Map<string, number>> {
    const last = new Map<string, number>();
    if (workflowKeys.length === 0) return last;
    const names = this.generations().flatMap((g) => allLogShards(this.env, g));
    const all = await Promise.all(names.map((name) => this.shard(name).lastTriggered(environmentId, workflowKeys)));
    for (const { workflowKey, at } of all.flat()) last.set(workflowKey, Math.max(at, last.get(workflowKey) ?? 0));
    return last;
  }

  /** Which deleted workflows (key, deleted at) still have an unfinished trigger accepted before the delete, as `<deleted at>:<key>`. */
  async unfinishedTriggers(environmentId: string, tombstones: [string, number][]): Promise<Set<string>> {
    if (tombstones.length === 0) return new Set();
    const names = this.generations().flatMap((g) => allLogShards(this.env, g));
    const all = await Promise.all(names.map((name) => this.shard(name).unfinishedTriggers(environmentId, tombstones)));
    return new Set(all.flat());
  }

  /**
   * A subscriber's erasure in the trigger records: those of `transactionIds` (their messages'
   * triggers) and those that quote them inline, found by each shard's `trigger_people` index (one
   * seek per shard, not a scan). Every shard is asked: a trigger's place is its own, not theirs.
   */
  async eraseTriggerSubject(environmentId: string, subscriberId: string, transactionIds: string[]): Promise<number> {
    const generations = this.everyGeneration();
    const byShard = this.triggerShards(environmentId, [...new Set(transactionIds)], generations);
    const all = await Promise.all(
      generations
        .flatMap((g) => allLogShards(this.env, g))
        .map((name) => this.shard(name).eraseTriggerSubject(environmentId, subscriberId, byShard.get(name) ?? [])),
    );
    return all.reduce((n, a) => n + a, 0);
  }
}
