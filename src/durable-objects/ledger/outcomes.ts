import type { TriggerRecord, TriggerState } from "../../jobs/trigger-record";
import type { WaitingStep } from "./claims";
import type { SignalOutcome } from "./signals";

/** What a ledger answers an accept, per trigger. */
export type AcceptOutcome = "accepted" | "replayed" | "conflict";

/** A trigger made durable: its record and the fingerprint a replay must match. */
export interface AcceptEntry {
  record: TriggerRecord;
  fingerprint: string;
}

export type CancelOutcome =
  | { status: "not_found" }
  | {
      status: "cancelled" | "already_cancelled" | "completed";
      record: TriggerRecord;
      /** Messages that will now never be sent. */
      cancelledMessages: number;
      /** Messages already handed to a provider (or being handed right now): not cancelled. */
      alreadySent: number;
      digests: string[];
    };

export interface FanOut {
  environmentId: string;
  transactionId: string;
  /** The recipient chunks of a trigger that runs here; null when a coordinator took it. */
  chunks: string[][] | null;
}

export interface FanOutResult {
  state: TriggerState;
  chunks: string[][] | null;
  completed: boolean;
  /**
   * This call recorded the fan-out: no chunk of the trigger has run before it (chunks run only
   * once their fan-out is recorded), so the log holds no message of it yet.
   */
  first: boolean;
}

/** A trigger's steps parked on a delay or quiet hours, at most the number asked for, and how many in all. */
export interface ParkedSteps {
  steps: WaitingStep[];
  total: number;
}

/** What a ledger knows of a trigger's waits: its parked steps, and the digests it joined (asked apart). */
export interface LedgerWaits extends ParkedSteps {
  digests: string[];
}

/**
 * One recipient's control step as a run view may show it: a fetch's response is reduced to its
 * status code and `detail` to its scalar values, so headers and bodies (which may carry secrets
 * or personal data) never leave the home object.
 */
export interface RecordedStep {
  subscriberId: string;
  stepId: string;
  status: string;
  path?: string;
  outcome?: "matched" | "timed_out";
  reason?: string;
  /** When it was decided (ISO 8601): the outcome's own time, else when it was first recorded. */
  at: string;
  until?: string;
  responseStatus?: number;
  detail?: Record<string, string | number | boolean | null>;
}

/** Which recipients of a trigger a run view asks for: a page of them in fan-out order, or one. */
export interface RunPage {
  subscriberId?: string;
  offset: number;
  limit: number;
}

/** What a trigger's home recorded of a page of its recipients' runs (`GET /v1/trigger/{transactionId}`). */
export interface RecordedRuns {
  /** The page's recipients, in the order the trigger fanned out to them. */
  recipients: string[];
  /** Where the next page starts; null on the last. */
  next: number | null;
  /** Their control steps' outcomes, in the order first recorded. */
  steps: RecordedStep[];
  /** Their parked steps. */
  waits: WaitingStep[];
}

/** A ledger's answer: the page, the workflow version the run follows, and the digests it joined (asked apart). */
export interface LedgerRuns extends RecordedRuns {
  workflow: Pick<TriggerRecord, "workflowKey" | "workflowId" | "workflowVersion">;
  digests: string[];
}

/** Claims of a trigger: sent or being sent, and settled one way or another. */
export interface ClaimCounts {
  sentOrSending: number;
  settled: number;
}

/** What one ledger shard did for an erasure, and what the caller must still reach. */
export interface ShardErasure {
  waitingSteps: number;
  /** transactionIds of the environment's live coordinated triggers. */
  coordinated: string[];
  /** Digests that collect for the subscriber. */
  digests: string[];
}

export type PokeOutcome = "completed" | "cancelled" | "running" | "resumed";

/** What a ledger answers a signal: the trigger is unknown here, or what the signal woke (wake.ts). */
export type SignalAnswer = { status: "not_found" } | ({ status: "received" } & SignalOutcome);
