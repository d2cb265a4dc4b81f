import type { MessageStatus } from "../../db/schema";
import type { ClaimReport } from "../../durable-objects/ledger/claims";
import type { IntegrationConfig } from "../../providers/types";
import { redactSecrets } from "../../engine/redact";
import { retryDelaySeconds } from "../backoff";
import { MessageWrites } from "../writes/message-writes";
import { transition } from "../recipients/recipient-transitions";
import type { Recipient } from "../recipients/recipients-state";
import { nextAttempt } from "../send/send-message";
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
  const { environmentId } = scope.job;
  const { step } = scope;
  for (const { send, integration, to, result } of delivered) {
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
    const attempts = send.attempts + 1;
    const base = { provider: integration.provider, integrationId: integration.id, to, attempts };
    // A capture is what the provider got: secrets in clear, so it is stored redacted like the message.
    for (const c of result.captures) writes.capture(environmentId, messageId, redactSecrets(c, scope.secrets));
    if (step.type === "push" || step.type === "chat")
      writes.removeAddresses(environmentId, recipient.profile.subscriberId, step.type, result.invalidAddresses);
    for (const address of result.invalidAddresses) {
      writes.suppress({
        environmentId,
        channel: step.type,
        address,
        reason: "invalid_recipient",
        provider: integration.provider,
        messageId,
      });
    }
    const key = claimKey(scope, recipient);
    // A provider's error may quote the request it refused.
    const outcome = result.outcome.ok
      ? result.outcome
      : { ...result.outcome, message: redactSecrets(result.outcome.message, scope.secrets) };
    if (outcome.ok) {
      // Clarion is the in-app provider: stored is delivered.
      const status: MessageStatus = step.type === "in_app" ? "delivered" : "sent";
      writes.update(
        scope.job,
        messageId,
        status,
        { ...base, providerMessageId: outcome.providerMessageId, errorCode: null, errorMessage: null },
        {
          status: "sent",
          detail: { provider: integration.provider, providerMessageId: outcome.providerMessageId },
        },
      );
      if (status === "delivered")
        writes.event(environmentId, messageId, { status: "delivered", detail: { provider: integration.provider } });
      transition(recipient, { type: "step", stepId: step.id, outcome: { status } });
      out.reports.push({ key, outcome: "sent", report: { providerMessageId: outcome.providerMessageId, ...base } });
      continue;
    }
    const unknown = outcome.kind === "unknown";
    const next = nextAttempt(outcome, integration, chain, attempts);
    const error =
      unknown && !next
        ? {
            errorCode: OUTCOME_UNKNOWN,
            errorMessage: `${integration.provider} did not answer in time and may have sent the message; it was not sent again, to avoid a duplicate.`,
          }
        : { errorCode: outcome.code, errorMessage: outcome.message };
    if (next) {
      const delaySeconds = next.id === integration.id ? retryDelaySeconds(attempts, outcome.retryAfterSeconds) : 1;
      writes.update(
        scope.job,
        messageId,
        "queued",
        { ...base, ...error },
        {
          status: "queued",
          detail: {
            retryInSeconds: delaySeconds,
            error: outcome.code,
            message: outcome.message,
            nextProvider: next.provider,
            ...(unknown ? { outcome: "unknown" } : {}),
          },
        },
      );
      out.reports.push({ key, outcome: "retry" });
      out.retries.push({ recipient, delaySeconds });
      continue;
    }
    const status: MessageStatus = outcome.kind === "invalid_recipient" ? "undeliverable" : "failed";
    writes.update(
      scope.job,
      messageId,
      status,
      { ...base, ...error },
      {
        status,
        detail: unknown
          ? { error: OUTCOME_UNKNOWN, cause: outcome.code, message: error.errorMessage, provider: integration.provider }
          : { error: outcome.code, message: outcome.message, provider: integration.provider },
      },
    );
    transition(recipient, { type: "step", stepId: step.id, outcome: { status } });
    out.reports.push({ key, outcome: "final", report: { status, ...base, ...error } });
    if (outcome.kind === "retryable") {
      out.exhausted.push({ messageId, reason: `failed after ${attempts} attempts over ${chain.length} provider(s): ${outcome.code}` });
    }
  }
  return out;
}
