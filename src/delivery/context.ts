import type { BatchItem } from "drizzle-orm/batch";
import { createDb, type Db } from "../db/client";
import { triggerFactEvents, type WrittenEvent, writtenEvents } from "../db/queries/fact-events";
import type { ClaimReport, ClaimResult, DeliveryOp, DeliveryOpResult, WaitEntry } from "../durable-objects/ledger/claims";
import { coordinatorStub, ledgerNameFor, ledgerStub } from "../durable-objects/ledger/shards";
import type { Bindings } from "../env";
import type { IntegrationConfig } from "../providers/types";
import type { DeliveryJob } from "./job";
import { MessageWrites } from "./message-writes";
import { MicroBatcher } from "./micro-batch";
import { RecipientReads } from "./recipient-reads";
import { finishTriggers } from "./trigger-writes";
import { dispatchWritten } from "./webhooks/dispatch";
import type { TriggerSnapshot } from "./trigger-record";

/** Where a trigger's sends are coordinated: its ledger shard, or its own coordinator for a large fan-out. */
export interface TriggerHome {
  claim(send: string[], final: string[]): Promise<ClaimResult>;
  report(reports: ClaimReport[]): Promise<void>;
  /** Marks recipients through every step; answers whether this finished the trigger (once). */
  recipientsDone(chunk: number, subscriberIds: string[]): Promise<boolean>;
  wait(entries: WaitEntry[]): Promise<"waiting" | "cancelled">;
  /** The trigger rests in a digest (or similar) until about `until`: the watchdog leaves it alone till then. */
  hold(until: number, digest?: string): Promise<void>;
}

type Key = { environmentId: string; transactionId: string };

/** An environment's variables and integrations, read once per consumer batch rather than once per chunk. */
export type EnvironmentCache = Map<
  string,
  Promise<{ vars: Record<string, string>; secrets: string[]; integrations: Map<string, IntegrationConfig[]>; linkSecret: string }>
>;

/**
 * What one consumer invocation shares between the chunks it runs: one D1 batch per phase and
 * one call per ledger shard or coordinator per phase, whatever the number of chunks.
 */
export class DeliveryContext {
  readonly db: Db;
  readonly environments: EnvironmentCache = new Map();
  /** Round trips and statements of this invocation: what the delivery log reports and bench/model.mjs takes as measured costs. */
  readonly costs = { d1Batches: 0, d1Statements: 0, objectCalls: 0 };
  private readonly d1: MicroBatcher<BatchItem<"sqlite">[], unknown[]>;
  private readonly messageWrites: MicroBatcher<MessageWrites, undefined>;
  private readonly ops: MicroBatcher<DeliveryOp, DeliveryOpResult>;
  private readonly reads: MicroBatcher<Key, TriggerSnapshot | null>;
  private readonly finishes: MicroBatcher<Key & { status: "completed" | "failed" }, undefined>;
  /** The reads of the recipient chunks started together, shared (one statement per table, not one per chunk). */
  readonly recipientReads: RecipientReads;
  /** Events written by this invocation, named to the webhook Queue once at its end (`flushEvents`), never between a write and its sends. */
  private readonly emitted: WrittenEvent[] = [];

  constructor(readonly env: Bindings) {
    this.db = createDb(env.DB);
    this.d1 = new MicroBatcher(async (_key, lists) => {
      const all = lists.flat();
      if (all.length === 0) return lists.map(() => []);
      const [first, ...rest] = all;
      this.costs.d1Batches++;
      this.costs.d1Statements += all.length;
      const results = (await this.db.batch([first!, ...rest])) as unknown[];
      let offset = 0;
      return lists.map((list) => {
        const start = offset;
        offset += list.length;
        return results.slice(start, offset);
      });
    });
    this.ops = new MicroBatcher(async (key, ops) => {
      this.costs.objectCalls++;
      const [kind, name] = [key.slice(0, 1), key.slice(2)];
      if (kind === "l") return (await ledgerStub(env, name).run(ops)) as DeliveryOpResult[];
      const { environmentId, transactionId } = ops[0]!;
      return (await coordinatorStub(env, environmentId, transactionId).run(ops)) as DeliveryOpResult[];
    });
    this.finishes = new MicroBatcher(async (_key, items) => {
      const statements = finishTriggers(this.db, items);
      const results = await this.write([...statements, triggerFactEvents(this.db, "trigger.completed", items)]);
      this.emit(writtenEvents(results, [statements.length]));
      return items.map(() => undefined);
    });
    this.messageWrites = new MicroBatcher(async (_key, list) => {
      const merged = MessageWrites.merged(list[0]!, list.slice(1));
      this.emit(merged.written(await this.write(merged.all())));
      return list.map(() => undefined);
    }, true);
    this.recipientReads = new RecipientReads(this.db, (statements) => this.write(statements));
    this.reads = new MicroBatcher(async (name, keys) => {
      this.costs.objectCalls++;
      return (await ledgerStub(env, name).snapshots(keys)) as (TriggerSnapshot | null)[];
    });
  }

  /** Runs statements in the phase's shared D1 batch; answers this caller's results, in order. */
  write(statements: BatchItem<"sqlite">[]): Promise<unknown[]> {
    return statements.length === 0 ? Promise.resolve([]) : this.d1.call("d1", statements);
  }

  /**
   * Writes a phase's messages, results and events with those of every chunk writing at the same
   * moment, merged into one statement per table and shape (MessageWrites.merged), and keeps the
   * events they wrote for `flushEvents`.
   */
  writeMessages(writes: MessageWrites): Promise<undefined> {
    return this.messageWrites.call("messages", writes);
  }

  /** Keeps the events a committed batch wrote, for `flushEvents` at the end of the invocation. */
  emit(written: readonly WrittenEvent[]): void {
    this.emitted.push(...written);
  }

  /** Names every event this invocation wrote to the webhook Queue, in as few sends as the Queue allows. */
  async flushEvents(): Promise<void> {
    const written = this.emitted.splice(0);
    try {
      await dispatchWritten(this.env, written);
    } catch (error) {
      // Written events are never lost: the sweep dispatches what was not. No job is retried for it.
      console.log(JSON.stringify({ level: "error", event: "event_dispatch_failed", error: String(error) }));
    }
  }

  /** Moves a trigger's D1 record to a terminal status; the chunks finishing together share a statement. */
  finish(environmentId: string, transactionId: string, status: "completed" | "failed"): Promise<undefined> {
    return this.finishes.call("finish", { environmentId, transactionId, status });
  }

  /** Reads a trigger from its ledger (one call per shard for all jobs of the batch). */
  snapshot(job: DeliveryJob): Promise<TriggerSnapshot | null> {
    const name = job.ledger ?? ledgerNameFor(this.env, job.environmentId, job.transactionId);
    return this.reads.call(name, { environmentId: job.environmentId, transactionId: job.transactionId });
  }

  home(trigger: TriggerSnapshot): TriggerHome {
    const target = trigger.coordinated ? `c:${trigger.environmentId}:${trigger.transactionId}` : `l:${trigger.ledger}`;
    const ids = { environmentId: trigger.environmentId, transactionId: trigger.transactionId };
    const run = <K extends DeliveryOp["kind"]>(op: Extract<DeliveryOp, { kind: K }>, to = target) =>
      this.ops.call(to, op) as Promise<Extract<DeliveryOpResult, { kind: K }>>;
    return {
      claim: async (send, final) => (await run({ kind: "claim", ...ids, send, final })).result,
      report: async (reports) => void (await run({ kind: "report", ...ids, reports })),
      recipientsDone: async (chunk, subscriberIds) => {
        const { completed } = await run({ kind: "done", ...ids, chunk, subscriberIds });
        // A coordinator finished the trigger: its ledger stops watching it and starts its retention.
        if (completed && trigger.coordinated) await ledgerStub(this.env, trigger.ledger).finish([{ ...ids, state: "completed" }]);
        return completed;
      },
      wait: async (entries) => (await run({ kind: "park", ...ids, entries })).outcome,
      hold: async (until, digest) =>
        void (await run({ kind: "hold", ...ids, until, ...(digest ? { digest } : {}) }, `l:${trigger.ledger}`)),
    };
  }
}
