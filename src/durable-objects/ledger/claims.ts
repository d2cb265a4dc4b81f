import type { RunStepRow } from "./run-steps";
import type { RecipientsJob } from "../../jobs/job";
import type { Json } from "../../contract/json";
import type { WaitMessageStatus } from "../../engine/wait-statuses";

/** What a consumer may do with each send identity (`subscriberId` + step) it asked for. */
export interface ClaimResult {
  granted: string[];
  /** The trigger was cancelled: record these as cancelled, send nothing. */
  cancelled: string[];
  /** Claimed by another consumer that has not reported yet: try again later. */
  busy: string[];
  /**
   * Already sent: never sent again. The report is given back so a consumer whose D1 write was
   * lost after the send can still record the message as sent.
   */
  sent: { key: string; report: SentReport }[];
  /**
   * Already failed for good (or undeliverable): never sent again. The result is given back so a
   * consumer whose D1 write was lost after the report can still record the message's end.
   */
  final: { key: string; report: FinalReport }[];
}

/** What the object keeps of a send, to repair the message's D1 record if that write was lost. */
export interface SentReport {
  providerMessageId: string;
  /** The id the send gave its message (and the provider): a repair records the message under it. Absent in reports kept before 0.13. */
  messageId?: string;
  provider: string;
  integrationId: string;
  /** Null once the subscriber is erased. */
  to: string | null;
  attempts: number;
}

/** What the object keeps of a send that ended without being sent, to repair its D1 record likewise. */
export interface FinalReport {
  status: "failed" | "undeliverable";
  /** As SentReport's. */
  messageId?: string;
  errorCode: string;
  errorMessage: string;
  provider: string;
  integrationId: string;
  /** Null once the subscriber is erased. */
  to: string | null;
  attempts: number;
}

export type ClaimReport =
  | { key: string; outcome: "retry" }
  | { key: string; outcome: "sent"; report: SentReport }
  | { key: string; outcome: "final"; report: FinalReport };

/** What holds a parked run: the kind of wait, and the step that runs when it ends. */
export interface WaitHold {
  /** `wait`: a wait step's timeout; `retry`: a fetch step's next attempt. */
  kind: "delay" | "quiet_hours" | "schedule" | "wait" | "retry";
  stepId: string;
  /** A wait step's: what wakes it before its timeout, so the object matches events without the workflow. */
  watch?: WaitWatch;
}

/**
 * What a parked wait step waits for. A signal wait names since when signals count (when the
 * recipient reached the wait), whether its `if` must still be read by the consumer, and the
 * last signal the consumer already read (`after`, a signal's sequence number in its home).
 */
export type WaitWatch =
  | { message: { step: string; status: WaitMessageStatus } }
  | { signal: string; conditional: boolean; since: number; after?: number };

/** A signal sent to a trigger (`POST /v1/trigger/{transactionId}/signals`), as its home keeps it. */
export interface TriggerSignal {
  name: string;
  data?: Json;
  /** Only this recipient's waits; absent: every recipient's. */
  subscriberId?: string;
}

export interface WaitEntry {
  fireAt: number;
  job: RecipientsJob;
  hold?: WaitHold;
}

/** One recipient's step waiting to run, and until when: what `GET /v1/trigger/{transactionId}` shows. */
export interface WaitingStep {
  /** Null for a wait parked before waits named their step. */
  stepId: string | null;
  subscriberId: string;
  kind: "delay" | "digest" | "quiet_hours" | "schedule" | "wait" | "retry";
  until: number;
}

/**
 * One call's worth of delivery bookkeeping for one trigger. The consumer gathers the operations
 * of every chunk it runs and sends each object one list per phase, not one call per chunk.
 */
export type DeliveryOp =
  | { kind: "claim"; environmentId: string; transactionId: string; send: string[]; final: string[] }
  | { kind: "report"; environmentId: string; transactionId: string; reports: ClaimReport[] }
  /** A live consumer still sending: its claims of these keys start their deadline again. */
  | { kind: "renew"; environmentId: string; transactionId: string; keys: string[] }
  | { kind: "done"; environmentId: string; transactionId: string; chunk: number; subscriberIds: string[] }
  | { kind: "park"; environmentId: string; transactionId: string; entries: WaitEntry[] }
  | { kind: "hold"; environmentId: string; transactionId: string; until: number; digest?: string }
  | { kind: "outcomes"; environmentId: string; transactionId: string; subscriberIds: string[] }
  | { kind: "record"; environmentId: string; transactionId: string; rows: RunStepRow[] };

export type DeliveryOpResult =
  | { kind: "claim"; result: ClaimResult }
  | { kind: "report" }
  | { kind: "renew"; renewed: number }
  | { kind: "done"; completed: boolean }
  | { kind: "park"; outcome: "waiting" | "cancelled" }
  | { kind: "hold" }
  | { kind: "outcomes"; rows: RunStepRow[] }
  | { kind: "record"; rows: RunStepRow[] };

/** A claim without a report or a renewal for this long is presumed lost with its consumer and may be granted again. */
export const CLAIM_DEADLINE_MS = 60_000;

/**
 * How often a consumer still sending renews its claims: a third of the deadline, so two
 * renewals may be late (a loaded isolate, a slow call) before another consumer could be granted
 * the same sends. Without it a live consumer slower than the deadline between its claim and its
 * report (a slow provider, a busy machine) had its sends granted again, and sent twice.
 */
export const CLAIM_RENEW_MS = CLAIM_DEADLINE_MS / 3;
