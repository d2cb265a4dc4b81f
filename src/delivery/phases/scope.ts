import type { Db } from "../../db/client";
import type { ChannelStep } from "../../engine/steps";
import type { RecipientsJob } from "../../jobs/job";
import type { MessageRow, SendIdentity } from "../writes/message-writes";
import { keyOf, type Recipient } from "../recipients/recipients-state";
import type { TriggerRecord } from "../../jobs/trigger-record";

/** What every phase of one channel step for one chunk shares. */
export interface StepScope {
  db: Db;
  job: RecipientsJob;
  trigger: TriggerRecord;
  step: ChannelStep;
  /** The chunk's messages already in D1, by send identity. */
  existing: Map<string, MessageRow>;
  /** The chunk's addresses on the suppression list, normalised. */
  suppressed: ReadonlySet<string>;
  /** Secret variable values: stored content never holds them, only the provider request does. */
  secrets: readonly string[];
  /** The workflow's tags: an in-app notification carries them so an Inbox can filter by them. */
  workflowTags?: readonly string[];
  /** A wait step of the workflow watches this step's messages (their statuses then wake it). */
  watched?: boolean;
  /**
   * Whether the chunk's run span is traced (its trace sampled): each send gets a span of its own
   * only then. A span per message of an unsampled trace records nothing, and was 3 % of a fan-out's CPU.
   */
  traced: boolean;
}

/** The send identity key the trigger's object claims: subscriber + step. */
export const claimKey = (scope: StepScope, recipient: Recipient) => keyOf(recipient.profile.subscriberId, scope.step.id);

export const identityOf = (scope: StepScope, subscriberId: string): SendIdentity => ({
  environmentId: scope.job.environmentId,
  transactionId: scope.job.transactionId,
  subscriberId,
  workflowKey: scope.trigger.workflowKey,
  stepId: scope.step.id,
  channel: scope.step.type,
  workflowVersion: scope.trigger.workflowVersion || null,
  tenantId: scope.trigger.tenant?.id ?? null,
  context: scope.trigger.context ?? null,
  ...(scope.watched ? { watched: true } : {}),
});
