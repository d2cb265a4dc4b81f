import type { MessageStatus } from "../../db/schema";
import type { ClaimReport } from "../../durable-objects/ledger/claims";
import type { IntegrationConfig } from "../../providers/types";
import { redactSecrets } from "../../engine/redact";
import { retryDelaySeconds } from "../backoff";
import { type EventInput, type MessageFields, MessageWrites } from "../writes/message-writes";
import { transition } from "../recipients/recipient-transitions";
import type { Recipient } from "../recipients/recipients-state";
import { nextAttempt } from "../send/send-message";
import type { Send } from "./record";
import type { Delivered } from "./send";
import { claimKey, type StepScope } from "./scope";

export interface Reported {
  /** What the trigger's object hears first, so a lost D1 write is repaired instead of sent again. */
  reports: ClaimReport[];
  /** What D1 records after the reports: results, tracking events, captures, dead addresses. */
  writes: MessageWrites;
  /** Messages that failed for good after every provider's attempts: reasons for the dead-letter queue. */
  exhausted: { messageId: string; reason: string }[];
  /** Recipients to try again, each after its delay. */
  retries: { recipient: Recipient; delaySeconds: number }[];
}

/** The error of a message that may or may not have been sent: final, never retried blindly. */
export const OUTCOME_UNKNOWN = "outcome_unknown";

/** What the provider answers mean, without I/O: sent, retry (same or next provider), or final. */
export function reportResults(delivered: Delivered[], chain: IntegrationConfig[], scope: StepScope, startedAt: Date, now: Date): Reported {
  const writes = new MessageWrites(scope.db, now);
  const out: Reported = { reports: [], writes, exhausted: [], retries: [] };
  for (const d of delivered) {
    recordAttempt(writes, scope, d, startedAt);
    // A provider's error may quote the request it refused.
    const { outcome } = d.result;
    if (outcome.ok) reportSent(out, scope, d, outcome.providerMessageId);
    else reportFailure(out, scope, d, chain, { ...outcome, message: redactSecrets(outcome.message, scope.secrets) });
  }
  return out;
}

type Failure = Extract<Delivered["result"]["outcome"], { ok: false }>;

/** What an attempt leaves whatever its outcome: a new message's first events, captures, dead addresses. */
function recordAttempt(writes: MessageWrites, scope: StepScope, { send, integration, result }: Delivered, startedAt: Date): void {
  const { environmentId } = scope.job;
  const { step } = scope;
  const { recipient, messageId } = send;
  if (send.isNew) {
    writes.event(
      environmentId,
      messageId,
      { status: "queued", ...(send.notes.length ? { detail: Object.assign({}, ...send.notes) } : {}) },
      startedAt,
    );
    writes.event(environmentId, messageId, { status: "sending", detail: { attempt: 1 } }, startedAt);
  }
  // A capture is what the provider got: secrets in clear, so it is stored redacted like the message.
  for (const c of result.captures) writes.capture(environmentId, messageId, redactSecrets(c, scope.secrets));
  if (step.type === "push" || step.type === "chat")
    writes.removeAddresses(environmentId, recipient.profile.subscriberId, step.type, result.invalidAddresses);
  for (const address of result.invalidAddresses) {
    writes.suppress({ environmentId, channel: step.type, address, reason: "invalid_recipient", provider: integration.provider, messageId });
  }
}

/**
 * A send's result on its message: its row changed, or, for a message not written yet (record.ts
 * `unwritten`), its one row, inserted as the result leaves it, with the content it was sent with.
 */
function recordResult(
  writes: MessageWrites,
  scope: StepScope,
  send: Send,
  status: MessageStatus,
  fields: Omit<MessageFields, "layoutVersion">,
  event: EventInput,
): void {
  if (!send.unwritten) {
    const { environmentId, transactionId } = scope.job;
    writes.update(
      { id: send.messageId, environmentId, transactionId, subscriberId: send.recipient.profile.subscriberId, stepId: scope.step.id },
      status,
      fields,
      event,
    );
    return;
  }
  const { identity, fields: stored, createdAt } = send.unwritten;
  writes.insertFinal(identity, status, { ...stored, ...fields }, [event], { id: send.messageId, createdAt });
}

const baseOf = ({ send, integration, to }: Delivered) => ({
  provider: integration.provider,
  integrationId: integration.id,
  to,
  attempts: send.attempts + 1,
});

/** Accepted by the provider: sent (an in-app message, stored by Clarion, is delivered). */
function reportSent(out: Reported, scope: StepScope, d: Delivered, providerMessageId: string): void {
  const { step } = scope;
  const { recipient, messageId } = d.send;
  const base = baseOf(d);
  const status: MessageStatus = step.type === "in_app" ? "delivered" : "sent";
  recordResult(
    out.writes,
    scope,
    d.send,
    status,
    { ...base, providerMessageId, errorCode: null, errorMessage: null },
    { status: "sent", detail: { provider: d.integration.provider, providerMessageId } },
  );
  if (status === "delivered")
    out.writes.event(scope.job.environmentId, messageId, { status: "delivered", detail: { provider: d.integration.provider } });
  transition(recipient, { type: "step", stepId: step.id, outcome: { status } });
  out.reports.push({ key: claimKey(scope, recipient), outcome: "sent", report: { providerMessageId, messageId, ...base } });
}

/** Refused or unanswered: tried again (same provider after a delay, or the next one), or final. */
function reportFailure(out: Reported, scope: StepScope, d: Delivered, chain: IntegrationConfig[], outcome: Failure): void {
  const { recipient, messageId } = d.send;
  const { integration } = d;
  const base = baseOf(d);
  const key = claimKey(scope, recipient);
  const unknown = outcome.kind === "unknown";
  const next = nextAttempt(outcome, integration, chain, base.attempts);
  const error =
    unknown && !next
      ? {
          errorCode: OUTCOME_UNKNOWN,
          errorMessage: `${integration.provider} did not answer in time and may have sent the message; it was not sent again, to avoid a duplicate.`,
        }
      : { errorCode: outcome.code, errorMessage: outcome.message };
  if (next) {
    const delaySeconds = next.id === integration.id ? retryDelaySeconds(base.attempts, outcome.retryAfterSeconds) : 1;
    const detail = {
      retryInSeconds: delaySeconds,
      error: outcome.code,
      message: outcome.message,
      nextProvider: next.provider,
      ...(unknown ? { outcome: "unknown" } : {}),
    };
    recordResult(out.writes, scope, d.send, "queued", { ...base, ...error }, { status: "queued", detail });
    out.reports.push({ key, outcome: "retry" });
    out.retries.push({ recipient, delaySeconds });
    return;
  }
  const status: MessageStatus = outcome.kind === "invalid_recipient" ? "undeliverable" : "failed";
  const detail = unknown
    ? { error: OUTCOME_UNKNOWN, cause: outcome.code, message: error.errorMessage, provider: integration.provider }
    : { error: outcome.code, message: outcome.message, provider: integration.provider };
  recordResult(out.writes, scope, d.send, status, { ...base, ...error }, { status, detail });
  transition(recipient, { type: "step", stepId: scope.step.id, outcome: { status } });
  out.reports.push({ key, outcome: "final", report: { status, messageId, ...base, ...error } });
  if (outcome.kind === "retryable") {
    out.exhausted.push({
      messageId,
      reason: `failed after ${base.attempts} attempts over ${chain.length} provider(s): ${outcome.code}`,
    });
  }
}
