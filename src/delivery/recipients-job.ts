import type { MessageStatus } from "../db/schema";
import type { ClaimReport } from "../durable-objects/ledger/claims";
import { isChannelStep } from "../features/workflows/steps";
import { addressesFor, displayAddress } from "./addresses";
import { retryDelaySeconds } from "./backoff";
import { cancelRecipients } from "./close-recipients";
import type { DeliveryContext } from "./context";
import { decide, preview } from "./decide";
import { runActionStep } from "./flow-steps";
import type { RecipientsJob } from "./job";
import { MessageWrites, type SendIdentity } from "./message-writes";
import { keyOf, load, type Recipient, type Stop } from "./recipients-state";
import { integrationForAttempt, sendMessage } from "./send-message";
import { decorateEmail } from "./tracking-links";
import type { TriggerSnapshot } from "./trigger-record";

export interface RecipientsResult {
  /** Subscribers whose delivery must continue later, and when. */
  retry: { subscriberIds: string[]; delaySeconds: number } | null;
  /** Messages that failed for good after every provider's attempts: reasons for the dead-letter queue. */
  exhausted: { messageId?: string; reason: string }[];
  /** Whether this job finished the trigger's last recipient. */
  completed: boolean;
}

/** Another consumer holds a claim: look again after this long (its deadline, if it died). */
const CLAIM_RETRY_SECONDS = 30;

/**
 * Runs a workflow's steps for a slice of a trigger's recipients. Each channel step is one
 * phase for all of them: decide (no I/O), claim the sends from the trigger's Durable Object
 * (one call: a cancelled trigger grants nothing, a sent message is never granted again),
 * one D1 batch recording skips and claims, the sends in parallel, one D1 batch with their
 * results, one report to the object. Delays and quiet hours park recipients on the object's
 * alarm; throttle and digest steps ask their own objects.
 */
export async function runRecipients(ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerSnapshot): Promise<RecipientsResult> {
  const { env, db } = ctx;
  const publicUrl = env.PUBLIC_URL;
  const loaded = await load(ctx, job, trigger);
  const coordinator = ctx.home(trigger);
  const exhausted: RecipientsResult["exhausted"] = [];
  let retryDelay = Number.POSITIVE_INFINITY;
  const halt = (recipient: Recipient, seconds: number) => {
    recipient.state = "halted";
    retryDelay = Math.min(retryDelay, seconds);
  };

  if (!loaded.workflow) {
    // Deleted after the trigger was accepted: there are no steps to record; the dead-letter queue keeps the reason.
    const completed = await coordinator.recipientsDone(job.chunk, job.subscriberIds);
    return { retry: null, exhausted: [{ reason: `workflow "${trigger.workflowKey}" no longer exists` }], completed };
  }
  if (job.note) for (const r of loaded.recipients.values()) r.notes.push(job.note);
  if (job.digestedInto) {
    const stop: Stop = { status: "skipped", code: "digested", message: `Collected into the digest sent by ${job.digestedInto}.` };
    for (const r of loaded.recipients.values()) r.stop = stop;
  }
  if (job.digest) {
    const collected = (await env.DIGESTS.get(env.DIGESTS.idFromName(job.digest.name)).collected(job.transactionId)) as {
      events: Record<string, unknown>[];
      count: number;
    } | null;
    for (const r of loaded.recipients.values()) r.steps[job.digest.stepId] = { status: "sent", events: collected?.events ?? [], count: collected?.count ?? 0 };
  }

  const steps = loaded.workflow.steps;
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index]!;
    const running = [...loaded.recipients.values()].filter((r) => r.state === "active");
    if (!isChannelStep(step)) {
      if (index >= (job.fromStep ?? 0)) await runActionStep(env, job, trigger, step, index, running.filter((r) => !r.stop), coordinator);
      continue;
    }
    const now = new Date();
    const decisions = running.map((recipient) => ({ recipient, decision: decide(step, recipient, loaded, trigger, now) }));
    for (const { recipient, decision } of decisions) {
      if (decision.kind === "done") recipient.steps[step.id] = { status: decision.status };
      if (decision.kind === "wait") {
        recipient.state = "waiting";
        recipient.resumeAt = { fireAt: decision.until, fromStep: index };
        recipient.notes.push({ heldUntil: new Date(decision.until).toISOString(), reason: "quiet_hours" });
      }
    }
    const sends = decisions.filter((d) => d.decision.kind === "send");
    const finals = decisions.filter((d) => d.decision.kind === "final");
    if (sends.length === 0 && finals.length === 0) continue;
    const key = (r: Recipient) => keyOf(r.profile.subscriberId, step.id);
    const claims = await coordinator.claim(sends.map((s) => key(s.recipient)), finals.map((f) => key(f.recipient)));
    const cancelled = new Set(claims.cancelled);
    const granted = new Set(claims.granted);

    const identity = (subscriberId: string): SendIdentity => ({
      environmentId: job.environmentId,
      transactionId: job.transactionId,
      subscriberId,
      workflowKey: trigger.workflowKey,
      stepId: step.id,
      channel: step.type,
    });
    const claimWrites = new MessageWrites(db, now);
    const record = (recipient: Recipient, status: MessageStatus, code: string, message: string) => {
      const existing = loaded.existing.get(key(recipient));
      const error = status === "failed" ? { errorCode: code, errorMessage: message } : {};
      const event = { status, detail: { reason: code, message, ...Object.assign({}, ...recipient.notes) } };
      recipient.notes = [];
      if (existing) claimWrites.update(job.environmentId, existing.id, status, error, event);
      else claimWrites.insertFinal(identity(recipient.profile.subscriberId), status, error, [event]);
      recipient.steps[step.id] = { status };
    };
    for (const { recipient } of [...finals, ...sends]) {
      if (!cancelled.has(key(recipient))) continue;
      recipient.stop = { status: "cancelled", code: "trigger_cancelled", message: "The trigger was cancelled." };
      record(recipient, "cancelled", "trigger_cancelled", "The trigger was cancelled.");
    }
    for (const { recipient, decision } of finals) {
      if (decision.kind === "final" && !cancelled.has(key(recipient))) record(recipient, decision.status, decision.code, decision.message);
    }
    // Sent by an earlier run whose D1 write was lost: record what the trigger object kept, send nothing.
    const alreadySent = new Map(claims.sent.map((s) => [s.key, s.report]));
    for (const { recipient } of sends) {
      const report = alreadySent.get(key(recipient));
      if (!report) continue;
      const existing = loaded.existing.get(key(recipient));
      const fields = { ...report, errorCode: null, errorMessage: null };
      const event = { status: "sent" as const, detail: { provider: report.provider, providerMessageId: report.providerMessageId, recovered: true } };
      if (existing) claimWrites.update(job.environmentId, existing.id, "sent", fields, event);
      else claimWrites.insertFinal(identity(recipient.profile.subscriberId), "sent", fields, [event]);
      recipient.steps[step.id] = { status: "sent" };
    }
    const toSend: {
      recipient: Recipient;
      messageId: string;
      /** A new message gets its `queued` and `sending` events with the result; a retried one already has its `sending`. */
      isNew: boolean;
      content: Record<string, unknown>;
      attempts: number;
      notes: Record<string, unknown>[];
    }[] = [];
    for (const { recipient, decision } of sends) {
      if (decision.kind !== "send" || cancelled.has(key(recipient)) || alreadySent.has(key(recipient))) continue;
      if (!granted.has(key(recipient))) {
        halt(recipient, CLAIM_RETRY_SECONDS);
        continue;
      }
      const existing = loaded.existing.get(key(recipient));
      const fields = { content: decision.content, subject: typeof decision.content.subject === "string" ? decision.content.subject : null, preview: preview(decision.content) };
      const messageId = existing ? existing.id : claimWrites.insertSending(identity(recipient.profile.subscriberId), fields);
      if (existing) claimWrites.update(job.environmentId, existing.id, "sending", fields, { status: "sending", detail: { attempt: existing.attempts + 1 } });
      toSend.push({ recipient, messageId, isNew: !existing, content: decision.content, attempts: existing?.attempts ?? 0, notes: recipient.notes });
      recipient.notes = [];
    }
    await ctx.write(claimWrites.all());

    const results = new MessageWrites(db, new Date());
    const reports: ClaimReport[] = [];
    const chain = loaded.integrations.get(step.type) ?? [];
    await Promise.all(
      toSend.map(async (send) => {
        const { recipient, messageId } = send;
        const { environmentId } = job;
        if (send.isNew) {
          results.event(environmentId, messageId, { status: "queued", ...(send.notes.length ? { detail: Object.assign({}, ...send.notes) } : {}) }, now);
          results.event(environmentId, messageId, { status: "sending", detail: { attempt: 1 } }, now);
        }
        const integration = integrationForAttempt(chain, send.attempts)!;
        const addresses = addressesFor(step.type, recipient.profile, integration);
        const content = step.type === "email" ? await decorateEmail(env, publicUrl, messageId, send.content, step.tracking) : send.content;
        const { outcome, captures, invalidAddresses } = await sendMessage(integration, addresses, {
          messageId,
          content: content as never,
          providerOverrides: (trigger.overrides?.[integration.provider] as Record<string, unknown> | undefined) ?? {},
          subscriber: {
            subscriberId: recipient.profile.subscriberId,
            firstName: (recipient.context.subscriber.firstName as string | null | undefined) ?? null,
            lastName: (recipient.context.subscriber.lastName as string | null | undefined) ?? null,
          },
        });
        const attempts = send.attempts + 1;
        const to = addresses.map((a) => displayAddress(step.type, a)).join(", ");
        const base = { provider: integration.provider, integrationId: integration.id, to, attempts };
        for (const c of captures) results.capture(environmentId, messageId, c);
        if (step.type === "push" || step.type === "chat") results.removeAddresses(environmentId, recipient.profile.subscriberId, step.type, invalidAddresses);
        const k = key(recipient);
        if (outcome.ok) {
          results.update(environmentId, messageId, "sent", { ...base, providerMessageId: outcome.providerMessageId, errorCode: null, errorMessage: null }, {
            status: "sent",
            detail: { provider: integration.provider, providerMessageId: outcome.providerMessageId },
          });
          recipient.steps[step.id] = { status: "sent" };
          reports.push({ key: k, outcome: "sent", report: { providerMessageId: outcome.providerMessageId, ...base } });
          return;
        }
        const error = { errorCode: outcome.code, errorMessage: outcome.message };
        const next = outcome.kind === "retryable" ? integrationForAttempt(chain, attempts) : undefined;
        if (next) {
          const delay = next.id === integration.id ? retryDelaySeconds(attempts, outcome.retryAfterSeconds) : 1;
          results.update(environmentId, messageId, "queued", { ...base, ...error }, {
            status: "queued",
            detail: { retryInSeconds: delay, error: outcome.code, message: outcome.message, nextProvider: next.provider },
          });
          reports.push({ key: k, outcome: "retry" });
          halt(recipient, delay);
          return;
        }
        const status: MessageStatus = outcome.kind === "invalid_recipient" ? "undeliverable" : "failed";
        results.update(environmentId, messageId, status, { ...base, ...error }, {
          status,
          detail: { error: outcome.code, message: outcome.message, provider: integration.provider },
        });
        recipient.steps[step.id] = { status };
        reports.push({ key: k, outcome: "final" });
        if (outcome.kind === "retryable") {
          exhausted.push({ messageId, reason: `failed after ${attempts} attempts over ${chain.length} provider(s): ${outcome.code}` });
        }
      }),
    );
    // The object learns of the sends first: if the D1 write below is lost, a redelivered job
    // finds them sent there and repairs the record instead of sending again.
    if (reports.length) await coordinator.report(reports);
    await ctx.write(results.all());
  }

  const all = [...loaded.recipients.values()];
  const waiting = Map.groupBy(all.filter((r) => r.state === "waiting" && r.resumeAt), (r) => `${r.resumeAt!.fireAt}:${r.resumeAt!.fromStep}`);
  if (waiting.size) {
    const entries = [...waiting.values()].map((group) => ({
      fireAt: group[0]!.resumeAt!.fireAt,
      job: {
        ...job,
        subscriberIds: group.map((r) => r.profile.subscriberId),
        fromStep: group[0]!.resumeAt!.fromStep,
        note: Object.assign({}, ...group[0]!.notes) as Record<string, unknown>,
        digest: undefined,
        digestedInto: undefined,
      },
    }));
    if ((await coordinator.wait(entries)) === "cancelled") {
      // Cancelled while they were on their way to wait: record their remaining steps now.
      await cancelRecipients(ctx, { ...job, subscriberIds: entries.flatMap((e) => e.job.subscriberIds) }, trigger);
      for (const r of all) if (r.state === "waiting") r.state = "stopped";
    }
  }
  const halted = all.filter((r) => r.state === "halted").map((r) => r.profile.subscriberId);
  const finished = all.filter((r) => r.state === "active" || r.state === "stopped").map((r) => r.profile.subscriberId);
  const completed = finished.length ? await coordinator.recipientsDone(job.chunk, finished) : false;
  return { retry: halted.length ? { subscriberIds: halted, delaySeconds: retryDelay } : null, exhausted, completed };
}

