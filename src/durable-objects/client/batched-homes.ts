import type { TriggerSnapshot } from "../../jobs/trigger-record";
import { MicroBatcher } from "../../lib/micro-batch";
import type { ClaimReport, ClaimResult, DeliveryOp, DeliveryOpResult, WaitEntry } from "../ledger/claims";
import type { TriggerHomeName, TriggerStore } from "./trigger-store";
import type { RunStepRow } from "../ledger/run-steps";

/** Where a trigger's sends are coordinated: its ledger shard, or its own coordinator for a large fan-out. */
export interface TriggerHome {
  claim(send: string[], final: string[]): Promise<ClaimResult>;
  report(reports: ClaimReport[]): Promise<void>;
  /** Restarts the deadline of these claims, still held while their sends go on; answers how many were. */
  renew(keys: string[]): Promise<number>;
  /** Marks recipients through every step; answers whether this finished the trigger (once). */
  recipientsDone(chunk: number, subscriberIds: string[]): Promise<boolean>;
  wait(entries: WaitEntry[]): Promise<"waiting" | "cancelled">;
  /** The trigger rests in a digest (or similar) until about `until`: the watchdog leaves it alone till then. */
  hold(until: number, digest?: string): Promise<void>;
  /** The control steps' outcomes recorded for these recipients. */
  outcomes(subscriberIds: string[]): Promise<RunStepRow[]>;
  /** Records control steps' outcomes; answers what is stored (the first final outcome wins). */
  record(rows: RunStepRow[]): Promise<RunStepRow[]>;
}

type TriggerKey = { environmentId: string; transactionId: string };

const isKind = <K extends DeliveryOpResult["kind"]>(result: DeliveryOpResult, kind: K): result is Extract<DeliveryOpResult, { kind: K }> =>
  result.kind === kind;

const keyOf = (home: TriggerHomeName) => (home.kind === "ledger" ? `l:${home.ledger}` : `c:${home.environmentId}:${home.transactionId}`);

/**
 * The trigger objects as one consumer invocation sees them: the calls its chunks make in the
 * same turn go to each ledger shard or coordinator as one list, one call per object per phase
 * whatever the number of chunks. `onCall` counts the calls (the delivery log's costs).
 */
export class BatchedHomes {
  private readonly ops: MicroBatcher<DeliveryOp, DeliveryOpResult>;
  private readonly reads: MicroBatcher<TriggerKey, TriggerSnapshot | null>;
  private readonly homes = new Map<string, TriggerHomeName>();

  constructor(
    private readonly store: TriggerStore,
    onCall: () => void,
  ) {
    this.ops = new MicroBatcher(async (key, ops) => {
      onCall();
      return store.run(this.homes.get(key)!, ops);
    });
    this.reads = new MicroBatcher(async (ledger, keys) => {
      onCall();
      return store.snapshots(ledger, keys);
    });
  }

  /** Reads a trigger from its ledger, with every other read of this turn from the same shard. */
  snapshot(ledger: string, key: TriggerKey): Promise<TriggerSnapshot | null> {
    return this.reads.call(ledger, key);
  }

  private call(home: TriggerHomeName, op: DeliveryOp): Promise<DeliveryOpResult> {
    const key = keyOf(home);
    this.homes.set(key, home);
    return this.ops.call(key, op);
  }

  /** The home of a trigger its ledger described. */
  home(trigger: TriggerSnapshot): TriggerHome {
    const ids = { environmentId: trigger.environmentId, transactionId: trigger.transactionId };
    const ledger: TriggerHomeName = { kind: "ledger", ledger: trigger.ledger };
    const home: TriggerHomeName = trigger.coordinated ? { kind: "coordinator", ...ids } : ledger;
    const answer = async <K extends DeliveryOpResult["kind"]>(kind: K, op: DeliveryOp, to = home) => {
      const result = await this.call(to, op);
      if (!isKind(result, kind)) throw new Error(`a ${op.kind} operation was answered with ${result.kind}`);
      return result;
    };
    return {
      claim: async (send, final) => (await answer("claim", { kind: "claim", ...ids, send, final })).result,
      report: async (reports) => void (await answer("report", { kind: "report", ...ids, reports })),
      renew: async (keys) => (await answer("renew", { kind: "renew", ...ids, keys })).renewed,
      recipientsDone: async (chunk, subscriberIds) => {
        const { completed } = await answer("done", { kind: "done", ...ids, chunk, subscriberIds });
        // A coordinator finished the trigger: its ledger stops watching it and starts its retention.
        if (completed && trigger.coordinated) await this.store.finish(trigger.ledger, [{ ...ids, state: "completed" }]);
        return completed;
      },
      wait: async (entries) => (await answer("park", { kind: "park", ...ids, entries })).outcome,
      outcomes: async (subscriberIds) => (await answer("outcomes", { kind: "outcomes", ...ids, subscriberIds })).rows,
      record: async (rows) => (rows.length ? (await answer("record", { kind: "record", ...ids, rows })).rows : []),
      hold: async (until, digest) => void (await answer("hold", { kind: "hold", ...ids, until, ...(digest ? { digest } : {}) }, ledger)),
    };
  }
}
