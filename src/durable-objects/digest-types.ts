import type { JsonObject } from "../contract/json";
import type { RecipientsJob } from "../jobs/job";

export interface DigestEntry {
  transactionId: string;
  payload: JsonObject;
  /** The job that continues this trigger's run after the digest step. */
  job: RecipientsJob;
  /** The step that runs when the window closes (absent in entries from older versions). */
  waitingStepId?: string;
}

/** This trigger's recipient waiting in a digest's open window, with the step that then runs and when it closes. */
export interface DigestPending {
  stepId: string;
  subscriberIds: string[];
  until: number;
}

export interface DigestCollected {
  events: JsonObject[];
  count: number;
}

/** Where a digest's run stands for one trigger: still collecting, or the job it continued with (null: it never waited there). */
export type DigestResume = { until: number } | { job: RecipientsJob } | null;

export interface DigestResumes {
  /** A digest still collects for the trigger until then: its run is waiting, not stalled. */
  until: number | null;
  /** Jobs of the trigger's recipients that closed digests sent on (each for one recipient). */
  jobs: RecipientsJob[];
}
