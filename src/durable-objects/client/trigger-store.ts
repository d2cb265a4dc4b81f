import type { TriggerSnapshot } from "../../jobs/trigger-record";
import type { Bindings } from "../../env";
import type { DeliveryOp, DeliveryOpResult, TriggerSignal } from "../ledger/claims";
import type { MessageReached, SignalOutcome } from "../ledger/signals";
import type {
  AcceptEntry,
  AcceptOutcome,
  CancelOutcome,
  ClaimCounts,
  FanOut,
  FanOutResult,
  LedgerRuns,
  LedgerWaits,
  ParkedSteps,
  PokeOutcome,
  RecordedRuns,
  RunPage,
  ShardErasure,
  SignalAnswer,
} from "../ledger/outcomes";
import { allLedgerNames, coordinatorName, ledgerNameFor, ledgerNamesFor } from "./naming";

import type { DigestCollected, DigestEntry, DigestPending, DigestResume, DigestResumes } from "../digest-types";

export type { DigestCollected, DigestEntry, DigestPending, DigestResumes } from "../digest-types";
export type {
  AcceptEntry,
  AcceptOutcome,
  CancelOutcome,
  FanOut,
  FanOutResult,
  LedgerRuns,
  LedgerWaits,
  ParkedSteps,
  RecordedRuns,
  RecordedStep,
  RunPage,
} from "../ledger/outcomes";

type TriggerKey = { environmentId: string; transactionId: string };

/** Digest objects asked at once by an erasure or a watchdog pass. */
const CONCURRENCY = 200;

/**
 * The one way into the trigger objects: ledger shards (both layouts while the shard count
 * changes), a large fan-out's coordinator, digests and throttles. It owns their names and hands
 * back plain results, so callers never build a stub or cast what an object answered.
 */
export class TriggerStore {
  constructor(private readonly env: Bindings) {}

  private ledger(name: string) {
    return this.env.LEDGERS.get(this.env.LEDGERS.idFromName(name));
  }

  private coordinator(environmentId: string, transactionId: string) {
    return this.env.COORDINATORS.get(this.env.COORDINATORS.idFromName(coordinatorName(environmentId, transactionId)));
  }

  private digestStub(name: string) {
    return this.env.DIGESTS.get(this.env.DIGESTS.idFromName(name));
  }

  /** The ledger a trigger lives in, for a job that does not name it (jobs from before ledgers). */
  ledgerOf(environmentId: string, transactionId: string): string {
    return ledgerNameFor(this.env, environmentId, transactionId);
  }

  /**
   * Makes triggers durable in their ledger shards: one call per shard, whatever the number of
   * triggers. After a change of shard count, a transactionId may live in the previous layout:
   * it is asked first (only then), so a replay or conflict is still recognised.
   */
  async accept(entries: AcceptEntry[]): Promise<AcceptOutcome[]> {
    const byLedger = Map.groupBy(
      entries.map((entry, index) => ({ entry, index })),
      ({ entry }) => this.ledgerOf(entry.record.environmentId, entry.record.transactionId),
    );
    const outcomes: AcceptOutcome[] = [];
    await Promise.all(
      [...byLedger].map(async ([name, items]) => {
        const answers = await this.acceptIn(
          name,
          items.map(({ entry }) => entry),
        );
        items.forEach(({ index }, i) => {
          outcomes[index] = answers[i]!;
        });
      }),
    );
    return outcomes;
  }

  private async acceptIn(name: string, entries: AcceptEntry[]): Promise<AcceptOutcome[]> {
    if (!this.env.LEDGER_SHARDS_PREVIOUS) return this.ledger(name).accept(name, entries);
    return Promise.all(
      entries.map(async (entry) => {
        const { environmentId, transactionId } = entry.record;
        const [, previous] = ledgerNamesFor(this.env, environmentId, transactionId);
        if (previous) {
          const [known] = await this.snapshots(previous, [{ environmentId, transactionId }]);
          if (known) return (await this.ledger(previous).accept(previous, [entry]))[0]!;
        }
        return (await this.ledger(name).accept(name, [entry]))[0]!;
      }),
    );
  }

  /** Triggers as one ledger holds them (null where it holds none). */
  snapshots(ledger: string, keys: TriggerKey[]): Promise<(TriggerSnapshot | null)[]> {
    return this.ledger(ledger).snapshots(keys);
  }

  /** One trigger as its ledger holds it, from whichever ledger does (the previous shard layout too); null once none does. */
  async snapshotOf(environmentId: string, transactionId: string): Promise<TriggerSnapshot | null> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      const [snapshot] = await this.snapshots(name, [{ environmentId, transactionId }]);
      if (snapshot) return snapshot;
    }
    return null;
  }

  /** A consumer phase's delivery bookkeeping, in the ledger shard or the coordinator that keeps the triggers' claims. */
  run(home: TriggerHomeName, ops: DeliveryOp[]): Promise<DeliveryOpResult[]> {
    if (home.kind === "ledger") return this.ledger(home.ledger).run(ops);
    return this.coordinator(home.environmentId, home.transactionId).run(ops);
  }

  /** Records how each trigger of one ledger fans out. */
  fanOut(ledger: string, items: FanOut[]): Promise<FanOutResult[]> {
    return this.ledger(ledger).fanOut(items);
  }

  /** Triggers a coordinator (or the dead-letter queue) finished: their ledger stops watching them. */
  finish(ledger: string, items: (TriggerKey & { state: "completed" | "failed" })[]): Promise<void> {
    return this.ledger(ledger).finish(items);
  }

  /** Cancels a trigger in whichever ledger holds it (the previous shard layout too, after a change of count). */
  async cancel(environmentId: string, transactionId: string): Promise<CancelOutcome> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      const outcome = await this.ledger(name).cancel(environmentId, transactionId);
      if (outcome.status !== "not_found") return outcome;
    }
    return { status: "not_found" };
  }

  /** A signal to a trigger's waits, in whichever ledger holds it (the previous shard layout too). */
  async signal(environmentId: string, transactionId: string, s: TriggerSignal): Promise<SignalAnswer> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      const answer = await this.ledger(name).signal(environmentId, transactionId, s);
      if (answer.status !== "not_found") return answer;
    }
    return { status: "not_found" };
  }

  /** Messages of a trigger that reached a status its waits watch: they wake those waits in the trigger's home. */
  async messagesReached(environmentId: string, transactionId: string, reached: MessageReached[]): Promise<void> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      if (await this.ledger(name).messagesReached(environmentId, transactionId, reached)) return;
    }
  }

  /** A trigger's parked steps (at most `limit`) and digests, from whichever ledger holds it; null when none does. */
  async waits(environmentId: string, transactionId: string, limit: number): Promise<LedgerWaits | null> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      const waits = await this.ledger(name).waitingSteps(environmentId, transactionId, limit);
      if (waits) return waits;
    }
    return null;
  }

  /**
   * A page of a trigger's recipients with what its home recorded of their runs, from whichever
   * ledger holds it (which asks the coordinator of a large fan-out); null once none does.
   */
  async runs(environmentId: string, transactionId: string, page: RunPage): Promise<LedgerRuns | null> {
    for (const name of ledgerNamesFor(this.env, environmentId, transactionId)) {
      const runs = await this.ledger(name).recordedRuns(environmentId, transactionId, page);
      if (runs) return runs;
    }
    return null;
  }

  /**
   * Erasure of one subscriber (GDPR art. 17) from every object that may hold their waiting steps:
   * every ledger shard, then the live coordinators and the subscriber's digests the shards name.
   * Answers how many waiting steps were cancelled.
   */
  async eraseSubscriber(environmentId: string, subscriberId: string): Promise<number> {
    const shards: ShardErasure[] = await Promise.all(
      allLedgerNames(this.env).map((name) => this.ledger(name).eraseSubscriber(environmentId, subscriberId)),
    );
    const coordinated = [...new Set(shards.flatMap((s) => s.coordinated))];
    const digests = [...new Set(shards.flatMap((s) => s.digests))];
    const [fromCoordinators, fromDigests] = await Promise.all([
      Promise.all(coordinated.map((tx) => this.coordinator(environmentId, tx).eraseSubscriber(subscriberId))),
      Promise.all(digests.map((name) => this.digestStub(name).erase())),
    ]);
    const sum = (counts: number[]) => counts.reduce((n, c) => n + c, 0);
    return sum(shards.map((s) => s.waitingSteps)) + sum(fromCoordinators) + sum(fromDigests);
  }

  /** When the oldest trigger still waiting for the delivery consumer became due, over every ledger shard; null when none waits. */
  async oldestUnstarted(now: number): Promise<number | null> {
    const dues = await Promise.all(allLedgerNames(this.env).map((name) => this.ledger(name).oldestUnstarted(now)));
    const waiting = dues.filter((d): d is number => d !== null);
    return waiting.length ? Math.min(...waiting) : null;
  }

  /** The coordinator of one large fan-out. */
  coordinatorOf(environmentId: string, transactionId: string) {
    const stub = () => this.coordinator(environmentId, transactionId);
    return {
      /** Takes the trigger's chunks; a redelivered fan-out gets the first ones back (null when this call stored them). */
      init: (ledger: string, chunks: string[][]): Promise<string[][] | null> => stub().init(environmentId, transactionId, ledger, chunks),
      cancel: (): Promise<ClaimCounts & { recipients: number }> => stub().cancel(),
      counts: (): Promise<ClaimCounts> => stub().counts(),
      waitingSteps: (limit: number): Promise<ParkedSteps> => stub().waitingSteps(limit),
      recordedRuns: (page: RunPage): Promise<RecordedRuns> => stub().recordedRuns(page),
      poke: (stallMs: number, digests: string[], now: number): Promise<PokeOutcome> => stub().poke(stallMs, digests, now),
      signal: (s: TriggerSignal): Promise<SignalOutcome> => stub().signal(s),
      messagesReached: (reached: MessageReached[]): Promise<void> => stub().messagesReached(reached),
    };
  }

  /** One digest, by name (`digestName`). */
  digest(name: string) {
    const stub = () => this.digestStub(name);
    return {
      add: (entry: DigestEntry, stepId: string, windowMs: number, mode: "fixed" | "lookback"): Promise<"continue" | "wait"> =>
        stub().add(entry, stepId, windowMs, mode),
      remove: (transactionId: string): Promise<boolean> => stub().remove(transactionId),
      pending: (transactionId: string): Promise<DigestPending | null> => stub().pending(transactionId),
      collected: (transactionId: string): Promise<DigestCollected | null> => stub().collected(transactionId),
      resume: (transactionId: string): Promise<DigestResume> => stub().resume(transactionId),
    };
  }

  /**
   * What the digests a trigger joined say of its run. A recipient that waits in a digest is
   * neither parked in a ledger nor done: only its digest knows whether the window is still open,
   * or which job its run continued with when it closed (the job the watchdog sends again).
   */
  async digestResumes(transactionId: string, names: readonly string[]): Promise<DigestResumes> {
    const resumes: DigestResumes = { until: null, jobs: [] };
    for (let i = 0; i < names.length; i += CONCURRENCY) {
      const answers = await Promise.all(names.slice(i, i + CONCURRENCY).map((name) => this.digest(name).resume(transactionId)));
      for (const answer of answers) {
        if (answer && "until" in answer) resumes.until = Math.max(resumes.until ?? 0, answer.until);
        else if (answer) resumes.jobs.push(answer.job);
      }
    }
    return resumes;
  }

  /** Whether a run passes a throttle (by name, `throttleName`); a redelivered job gets the same answer. */
  takeThrottle(name: string, transactionId: string, windowMs: number, limit: number): Promise<boolean> {
    return this.env.THROTTLES.get(this.env.THROTTLES.idFromName(name)).take(transactionId, windowMs, limit);
  }
}

/** Where a trigger's claims are kept: its ledger shard, or its own coordinator for a large fan-out. */
export type TriggerHomeName = { kind: "ledger"; ledger: string } | { kind: "coordinator"; environmentId: string; transactionId: string };
