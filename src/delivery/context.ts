import { runBatch, type Statement } from "../db/batch";
import type { Db } from "../db/client";
import { unscopedDb } from "../db/unscoped";
import {
  eventTaken,
  loggedTriggerFactEvents,
  type NoEndpoints,
  noEndpointsStands,
  triggerFactEvents,
  type WrittenEvent,
  writtenEvents,
} from "../db/queries/fact-events";
import { BatchedHomes, type TriggerHome } from "../durable-objects/client/batched-homes";
import { TriggerStore } from "../durable-objects/client/trigger-store";
import type { LogStore, OutboxEntry } from "../durable-objects/client/log-store";
import { unscopedLogs } from "../durable-objects/client/unscoped-logs";
import type { Bindings } from "../env";
import type { ActiveIntegrations } from "../db/queries/integrations";
import type { RecipientsJob, TriggerJob } from "../jobs/job";
import { MicroBatcher } from "../lib/micro-batch";
import { MessageWrites } from "./writes/message-writes";
import { ClaimLeases } from "./phases/claim-lease";
import { WriteQuorum } from "./phases/write-quorum";
import { RecipientReads } from "./recipient-reads";
import { finishTriggers } from "./writes/trigger-writes";
import { dispatchWritten } from "./webhooks/dispatch";
import type { TriggerSnapshot } from "../jobs/trigger-record";
import type { DeliveryServices } from "./child-triggers";

type Key = { environmentId: string; transactionId: string };

/** When a trigger was accepted, where the item says so as a time (the log's records do): its counts then ask only the log's generations since. */
const acceptedAtOf = (item: Key): number | undefined =>
  "acceptedAt" in item && typeof item.acceptedAt === "number" ? item.acceptedAt : undefined;

/**
 * How long a group commit of the messages' writes waits at most for the chunks on their way to it
 * (write-quorum.ts): about a wave of claims answered by a loaded ledger, and a fraction of a
 * provider's own latency.
 */
const GATHER_MS = 100;

/** Waits before the D1 half of a phase is tried again (see `afterLog`). */
const AFTER_LOG_RETRY_MS = [100, 500, 2_000];

/** An environment's variables and integrations, read once per consumer batch rather than once per chunk. */
export type EnvironmentCache = Map<
  string,
  Promise<{
    vars: Record<string, string>;
    secrets: string[];
    integrations: ActiveIntegrations;
    linkSecret: string;
    /** Set when the read found no enabled webhook endpoint (`noEndpointsStands`). */
    noEndpoints: NoEndpoints | null;
  }>
>;

/**
 * What one consumer invocation shares between the chunks it runs: one D1 batch per phase and
 * one call per ledger shard or coordinator per phase, whatever the number of chunks.
 */
export class DeliveryContext {
  readonly db: Db;
  readonly environments: EnvironmentCache = new Map();
  /** Round trips and statements of this invocation: what the delivery log reports and bench/model.mjs takes as measured costs. */
  readonly costs = { d1Batches: 0, d1Statements: 0, objectCalls: 0, logCalls: 0 };
  /** The message log's shards: a phase's messages and timelines, one call per shard. */
  readonly logs: LogStore;
  private readonly d1: MicroBatcher<Statement[], unknown[]>;
  /** Answers each chunk's own failure rather than rejecting: a merged batch's failure is not every chunk's. */
  private readonly messageWrites: MicroBatcher<MessageWrites, { error: unknown } | null>;
  /** The trigger objects, one call per object per phase. */
  readonly store: TriggerStore;
  /** The claims this invocation's chunks hold while they send, renewed together (phases/claim-lease.ts). */
  readonly leases = new ClaimLeases();
  /** The chunks on their way to a messages' write, which its group commit waits for (write-quorum.ts). */
  readonly quorum = new WriteQuorum(GATHER_MS);
  private readonly homes: BatchedHomes;
  private readonly finishes: MicroBatcher<Key & { status: "completed" | "failed" }, undefined>;
  /** The reads of the recipient chunks started together, shared (one statement per table, not one per chunk). */
  readonly recipientReads: RecipientReads;
  /** Events written by this invocation, named to the webhook Queue once at its end (`flushEvents`), never between a write and its sends. */
  private readonly emitted: WrittenEvent[] = [];
  /** Triggers whose fan-out this invocation recorded first (`firstRun`): their chunks skip the log's read. */
  private readonly firstRuns = new Set<string>();
  /** Log shards' outbox entries whose D1 half D1 took in this invocation: settled at its end (`flushEvents`). */
  private readonly settled: OutboxEntry[] = [];

  constructor(
    readonly env: Bindings,
    /** What the Worker's entry gives the consumer from the features (absent where no step needs it: the dead letters, tests of writes). */
    readonly services?: DeliveryServices,
  ) {
    // Not one environment's: a consumer batch holds jobs of several, and their writes are merged
    // into one D1 batch per phase. Each statement names its job's environment (writes/, db/queries/).
    this.db = unscopedDb(env);
    this.d1 = new MicroBatcher(async (_key, lists) => {
      const results = await this.batch(lists.flat());
      let offset = 0;
      return lists.map((list) => {
        const start = offset;
        offset += list.length;
        return results.slice(start, offset);
      });
    });
    this.store = new TriggerStore(env);
    this.logs = unscopedLogs(env);
    this.homes = new BatchedHomes(this.store, () => this.costs.objectCalls++);
    this.finishes = new MicroBatcher(async (_key, items) => {
      // The log's records first; D1 only for triggers it recorded before the log took them.
      const { finished, legacy } = await this.logs.finishTriggers(items, Date.now());
      const done = finished.filter((t) => t.status === "completed" || t.status === "failed");
      const described = (await this.countedForEvents(done)).filter((t) => t.counts !== undefined);
      const statements = legacy.length ? finishTriggers(this.db, legacy) : [];
      const events = [
        ...(legacy.length ? [triggerFactEvents(this.db, "trigger.completed", await this.countedForEvents(legacy))] : []),
        // Only for environments an endpoint takes it in: no D1 statement at all otherwise.
        ...(described.length ? [loggedTriggerFactEvents(this.db, "trigger.completed", described)] : []),
      ];
      const results = await this.write([...statements, ...events]);
      this.emit(
        writtenEvents(
          results,
          events.map((_, i) => statements.length + i),
        ),
      );
      return items.map(() => undefined);
    });
    this.messageWrites = new MicroBatcher(
      async (_key, list) => {
        const merged = MessageWrites.merged(list[0]!, list.slice(1));
        try {
          const { statements, outbox } = await this.toLog(merged);
          this.emit(merged.written(await this.write(statements)));
          this.settled.push(...outbox);
          return list.map(() => null);
        } catch (error) {
          if (list.length === 1) return [{ error }];
        }
        // A D1 batch is atomic: one chunk's bad row rolled back every chunk merged with it. Each
        // alone (straight to D1, not merged again), so only the chunk whose own write fails retries.
        // The log's rows are written again with it: a message's send identity keeps its first row.
        return Promise.all(
          list.map(async (writes) => {
            try {
              const { statements, outbox } = await this.toLog(writes);
              this.emit(writes.written(await this.afterLog(statements)));
              this.settled.push(...outbox);
              return null;
            } catch (error) {
              return { error };
            }
          }),
        );
      },
      true,
      () => this.quorum.gathered(),
    );
    this.recipientReads = new RecipientReads(
      this.db,
      (statements) => this.write(statements),
      this.logs,
      (environmentId, transactionId) => this.firstRuns.has(`${environmentId}\u0000${transactionId}`),
    );
  }

  /** One D1 batch, counted: drizzle's queries and the hand-bound inserts of MessageWrites together. */
  private async batch(statements: Statement[]): Promise<unknown[]> {
    if (statements.length === 0) return [];
    this.costs.d1Batches++;
    this.costs.d1Statements += statements.length;
    return runBatch(this.db, statements);
  }

  /**
   * Finished triggers with their messages counted by status, for `trigger.completed`: asked of
   * every log shard (a trigger's recipients may be anywhere), so only for an environment with an
   * endpoint that takes the event.
   */
  private async countedForEvents<T extends Key>(items: T[]): Promise<(T & { counts?: Record<string, number> })[]> {
    if (items.length === 0) return [];
    const environments = [...new Set(items.map((i) => i.environmentId))];
    const taking = new Set(
      (await Promise.all(environments.map(async (e) => ((await eventTaken(this.db, e, "trigger.completed")) ? e : null)))).filter(
        (e) => e !== null,
      ),
    );
    if (taking.size === 0) return items;
    return Promise.all(
      items.map(async (i) =>
        taking.has(i.environmentId)
          ? { ...i, counts: Object.fromEntries(await this.logs.counts(i.environmentId, i.transactionId, acceptedAtOf(i))) }
          : i,
      ),
    );
  }

  /**
   * Writes a phase's log rows (one call per shard) with its D1 half in the shards' outbox, and
   * answers the D1 statements that follow them and the outbox entries to settle once D1 took them.
   */
  private async toLog(writes: MessageWrites): Promise<{ statements: Statement[]; outbox: OutboxEntry[] }> {
    // Read first: the outbox then keeps no message events that D1 would not take either (each
    // shard built and stored them for every phase, and a phase with nothing else kept an entry to settle).
    const endpointless = await this.endpointless(writes.environments());
    const batch = writes.logBatch(this.logs);
    writes.keepD1Half(batch, endpointless);
    if (!writes.reportsMessages(endpointless)) batch.describeNothing();
    this.costs.logCalls += batch.shards;
    const { described, outbox } = await this.logs.write(batch);
    return { statements: writes.all(batch.legacy, described, endpointless), outbox };
  }

  /**
   * The environments among these that this invocation read with no enabled webhook endpoint, a
   * read that still stands: their message events' statement would insert nothing, so a phase
   * sends none. The others keep it, with its own check of the endpoints as it writes.
   */
  private async endpointless(environmentIds: readonly string[]): Promise<ReadonlySet<string>> {
    const none = new Set<string>();
    for (const environmentId of environmentIds) {
      const data = this.environments.get(environmentId);
      if (data && noEndpointsStands(await data.catch(() => null).then((d) => d?.noEndpoints))) none.add(environmentId);
    }
    return none;
  }

  /**
   * The D1 half of a phase whose log rows are written: tried again here, a little later, before
   * the chunk is given back to the Queue, because a retried chunk finds its messages final in the
   * log and does not redo this half (its outbound events, suppressions and captures). D1 refuses a
   * batch for a passing reason far more often than for good: the retries cover those.
   */
  private async afterLog(statements: Statement[]): Promise<unknown[]> {
    let failure: unknown;
    for (const delay of [0, ...AFTER_LOG_RETRY_MS]) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        return await this.batch(statements);
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  }

  /** Runs statements in the phase's shared D1 batch; answers this caller's results, in order. */
  write(statements: Statement[]): Promise<unknown[]> {
    return statements.length === 0 ? Promise.resolve([]) : this.d1.call("d1", statements);
  }

  /**
   * Writes a phase's messages, results and events with those of every chunk writing at the same
   * moment, merged into one statement per table and shape (MessageWrites.merged), and keeps the
   * events they wrote for `flushEvents`.
   */
  async writeMessages(writes: MessageWrites): Promise<undefined> {
    const failed = await this.messageWrites.call("messages", writes);
    if (failed) throw failed.error;
    return undefined;
  }

  /** Keeps the events a committed batch wrote, for `flushEvents` at the end of the invocation. */
  emit(written: readonly WrittenEvent[]): void {
    this.emitted.push(...written);
  }

  /**
   * Names every event this invocation wrote to the webhook Queue, in as few sends as the Queue
   * allows, and settles the log shards' outbox entries whose D1 half D1 took: one call per shard
   * for the whole invocation (an entry not settled is run again by its shard's alarm, adding nothing).
   */
  async flushEvents(): Promise<void> {
    const settled = this.settled.splice(0);
    if (settled.length) {
      this.costs.logCalls += new Set(settled.map((e) => e.shard)).size;
      await this.logs.settle(settled).catch((error: unknown) => {
        console.log(JSON.stringify({ level: "warn", event: "log_outbox_settle_failed", error: String(error) }));
      });
    }
    const written = this.emitted.splice(0);
    try {
      await dispatchWritten(this.env, written);
    } catch (error) {
      // Written events are never lost: the sweep dispatches what was not. No job is retried for it.
      console.log(JSON.stringify({ level: "error", event: "event_dispatch_failed", error: String(error) }));
    }
  }

  /** Moves a trigger's record (the log's, or D1's from before it) to a terminal status; the chunks finishing together share a call. */
  finish(environmentId: string, transactionId: string, status: "completed" | "failed"): Promise<undefined> {
    return this.finishes.call("finish", { environmentId, transactionId, status });
  }

  /** Reads a trigger from its ledger (one call per shard for all jobs of the batch). */
  snapshot(job: TriggerJob | RecipientsJob): Promise<TriggerSnapshot | null> {
    const ledger = job.ledger ?? this.store.ledgerOf(job.environmentId, job.transactionId);
    return this.homes.snapshot(ledger, { environmentId: job.environmentId, transactionId: job.transactionId });
  }

  /**
   * This invocation recorded the trigger's fan-out first (`FanOutResult.first`): no chunk of it ran
   * before, so what its chunk reads of the log would be empty and is not asked for.
   */
  firstRun(environmentId: string, transactionId: string): void {
    this.firstRuns.add(`${environmentId}\u0000${transactionId}`);
  }

  home(trigger: TriggerSnapshot): TriggerHome {
    return this.homes.home(trigger);
  }
}
