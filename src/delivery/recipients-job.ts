import { and, eq, inArray } from "drizzle-orm";
import { createDb, type Db } from "../db/client";
import { runBatch } from "../db/batch";
import { messages, subscriberChannels, subscribers, workflows, type MessageStatus, type SubscriberPreferences } from "../db/schema";
import type { StepOutcomeView, TemplateContext } from "../engine/content";
import { evaluateCondition } from "../engine/conditions";
import { quietHoursEnd, zoneOf } from "../engine/local-time";
import { applyOverrides, renderChannel } from "../engine/templates";
import { DigestObject } from "../durable-objects/digest-object";
import { triggerObject, type TriggerSnapshot } from "../durable-objects/trigger-client";
import type { Bindings } from "../env";
import { activeIntegrations } from "../features/integrations/repository";
import { isChannelAllowed } from "../features/subscribers/preferences";
import { loadTemplateVariables } from "../features/variables/repository";
import { isChannelStep, type ChannelStep, type Step } from "../features/workflows/steps";
import type { IntegrationConfig } from "../providers/types";
import { NEGLIGIBLE_DELAY_MS, planDelay, stepKey, windowMs } from "./action-steps";
import { addressesFor, displayAddress, type RecipientProfile } from "./addresses";
import { retryDelaySeconds } from "./backoff";
import type { RecipientsJob } from "./job";
import { MessageWrites, type MessageRow, type SendIdentity } from "./message-writes";
import { integrationForAttempt, sendMessage } from "./send-message";
import { decorateEmail } from "./tracking-links";

const FINAL_OR_SENT: ReadonlySet<MessageStatus> = new Set([
  "sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled",
]);

/** Why a recipient's remaining channel steps are recorded without a send. */
interface Stop {
  status: "skipped" | "failed" | "cancelled";
  code: string;
  message: string;
}

interface Recipient {
  profile: RecipientProfile;
  context: Omit<TemplateContext, "step" | "steps">;
  preferences: SubscriberPreferences | null;
  locale: string | null;
  timezone: string | null;
  steps: Record<string, StepOutcomeView>;
  /**
   * active: running; stopped: remaining steps are recorded per `stop`; halted: waiting for a
   * retry or another consumer; waiting: held until `resumeAt` (delay, quiet hours);
   * digesting: its run continues from the digest object.
   */
  state: "active" | "stopped" | "halted" | "waiting" | "digesting";
  stop?: Stop;
  resumeAt?: { fireAt: number; fromStep: number };
  /** Said in the tracking log of the recipient's next message (a delay whose time had passed). */
  notes: Record<string, unknown>[];
}

export interface RecipientsResult {
  /** Subscribers whose delivery must continue later, and when. */
  retry: { subscriberIds: string[]; delaySeconds: number } | null;
  /** Messages that failed for good after every provider's attempts: reasons for the dead-letter queue. */
  exhausted: { messageId?: string; reason: string }[];
  /** Whether this job finished the trigger's last recipient. */
  completed: boolean;
}

interface Loaded {
  workflow: { key: string; name: string; critical: boolean; steps: Step[] } | null;
  recipients: Map<string, Recipient>;
  existing: Map<string, MessageRow>;
  integrations: Map<string, IntegrationConfig[]>;
}

const keyOf = (subscriberId: string, stepId: string) => `${subscriberId}\u0000${stepId}`;

async function load(db: Db, env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot): Promise<Loaded> {
  const { environmentId, transactionId, subscriberIds } = job;
  const [[workflowRows, subscriberRows, channelRows, messageRows], vars, integrations] = await Promise.all([
    db.batch([
      db
        .select({ key: workflows.key, name: workflows.name, critical: workflows.critical, steps: workflows.steps })
        .from(workflows)
        .where(and(eq(workflows.environmentId, environmentId), eq(workflows.key, trigger.workflowKey)))
        .limit(1),
      db.select().from(subscribers).where(and(eq(subscribers.environmentId, environmentId), inArray(subscribers.subscriberId, subscriberIds))),
      db
        .select()
        .from(subscriberChannels)
        .where(and(eq(subscriberChannels.environmentId, environmentId), inArray(subscriberChannels.subscriberId, subscriberIds))),
      db
        .select()
        .from(messages)
        .where(and(eq(messages.environmentId, environmentId), eq(messages.transactionId, transactionId), inArray(messages.subscriberId, subscriberIds))),
    ]),
    loadTemplateVariables(db, environmentId),
    activeIntegrations(db, environmentId, env.ENCRYPTION_KEY),
  ]);
  const workflow = workflowRows[0] ? { ...workflowRows[0], steps: workflowRows[0].steps as Step[] } : null;
  const actor = actorView(trigger.actor);
  const recipients = new Map<string, Recipient>();
  for (const subscriberId of subscriberIds) {
    const row = subscriberRows.find((s) => s.subscriberId === subscriberId);
    const mine = channelRows.filter((c) => c.subscriberId === subscriberId);
    const { preferences, id: _id, environmentId: _env, createdAt, updatedAt, ...profile } = row ?? { subscriberId };
    recipients.set(subscriberId, {
      profile: {
        subscriberId,
        email: row?.email ?? null,
        phone: row?.phone ?? null,
        pushTokens: mine.filter((c) => c.channel === "push"),
        chatWebhooks: mine.filter((c) => c.channel === "chat"),
      },
      context: {
        payload: trigger.payload,
        subscriber: { ...profile, ...(createdAt ? { createdAt: createdAt.toISOString(), updatedAt: updatedAt?.toISOString() } : {}) },
        actor,
        vars,
        workflow: { key: trigger.workflowKey, name: workflow?.name ?? trigger.workflowKey },
      },
      preferences: preferences ?? null,
      locale: row?.locale ?? null,
      timezone: row?.timezone ?? null,
      steps: {},
      state: "active",
      notes: [],
    });
  }
  const existing = new Map(messageRows.map((m) => [keyOf(m.subscriberId, m.stepId), m]));
  return { workflow, recipients, existing, integrations };
}

const actorView = (actor: unknown): Record<string, unknown> | null =>
  typeof actor === "string" ? { subscriberId: actor } : actor && typeof actor === "object" ? (actor as Record<string, unknown>) : null;

const contextFor = (recipient: Recipient, step: Step): TemplateContext => ({
  ...recipient.context,
  steps: recipient.steps,
  step: { id: step.id, type: step.type },
});

/** A short plain-text view for message lists: the text part, else the HTML without its tags. */
const preview = (content: Record<string, unknown>) => {
  const plain = [content.text, content.body, content.title].find((v): v is string => typeof v === "string" && v !== "");
  const html = typeof content.html === "string" ? content.html.replace(/<(style|script)[\s\S]*?<\/\1>/gi, "").replace(/<[^>]+>/g, " ") : "";
  return (plain ?? html).replace(/\s+/g, " ").trim().slice(0, 140);
};

type Decision =
  | { kind: "done"; status: string }
  | { kind: "wait"; until: number }
  | { kind: "final"; status: MessageStatus; code: string; message: string }
  | { kind: "send"; content: Record<string, unknown> };

/** Decides, without I/O, what one channel step does for one recipient. */
function decide(step: ChannelStep, recipient: Recipient, loaded: Loaded, trigger: TriggerSnapshot, now: Date): Decision {
  const existing = loaded.existing.get(keyOf(recipient.profile.subscriberId, step.id));
  if (existing && FINAL_OR_SENT.has(existing.status)) return { kind: "done", status: existing.status };
  const final = (status: MessageStatus, code: string, message: string): Decision => ({ kind: "final", status, code, message });
  if (recipient.stop) return final(recipient.stop.status, recipient.stop.code, recipient.stop.message);
  const context = contextFor(recipient, step);
  if (step.if && !evaluateCondition(step.if, context, now)) return final("skipped", "condition", "The step's condition was false.");
  const critical = loaded.workflow?.critical ?? false;
  if (!isChannelAllowed(recipient.preferences, trigger.workflowKey, step.type, critical)) {
    return final("skipped", "preference", `The subscriber opted out of ${step.type}.`);
  }
  const chain = loaded.integrations.get(step.type) ?? [];
  if (addressesFor(step.type, recipient.profile, chain[0]).length === 0) {
    return final("skipped", "missing_address", `The subscriber has no ${step.type} address.`);
  }
  if (chain.length === 0) return final("failed", "no_integration", `No active ${step.type} integration in this environment.`);
  const quiet = recipient.preferences?.quietHours;
  const quietEnd = quiet && !critical ? quietHoursEnd(now, quiet, zoneOf(recipient.timezone)) : null;
  if (quietEnd) return { kind: "wait", until: quietEnd.getTime() };
  const rendered = renderChannel(step, context, recipient.locale);
  if (!rendered.ok) return final("failed", rendered.code, rendered.message);
  return { kind: "send", content: applyOverrides(step.type, rendered.content, trigger.overrides ?? {}) as unknown as Record<string, unknown> };
}

/**
 * Runs a workflow's steps for a slice of a trigger's recipients. Each channel step is one
 * phase for all of them: decide (no I/O), claim the sends from the trigger's Durable Object
 * (one call: a cancelled trigger grants nothing, a sent message is never granted again),
 * one D1 batch recording skips and claims, the sends in parallel, one D1 batch with their
 * results, one report to the object. Delays and quiet hours park recipients on the object's
 * alarm; throttle and digest steps ask their own objects.
 */
export async function runRecipients(env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot, publicUrl: string): Promise<RecipientsResult> {
  const db = createDb(env.DB);
  const loaded = await load(db, env, job, trigger);
  const coordinator = triggerObject(env, job.environmentId, job.transactionId);
  const exhausted: RecipientsResult["exhausted"] = [];
  let retryDelay = Number.POSITIVE_INFINITY;
  const halt = (recipient: Recipient, seconds: number) => {
    recipient.state = "halted";
    retryDelay = Math.min(retryDelay, seconds);
  };

  if (!loaded.workflow) {
    for (const r of loaded.recipients.values()) r.stop = { status: "failed", code: "workflow_deleted", message: `The workflow "${trigger.workflowKey}" no longer exists.` };
    return { retry: null, exhausted: [{ reason: `workflow "${trigger.workflowKey}" no longer exists` }], completed: await coordinator.recipientsDone(job.chunk, job.subscriberIds) };
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
    const toSend: { recipient: Recipient; messageId: string; content: Record<string, unknown>; attempts: number; notes: Record<string, unknown>[] }[] = [];
    for (const { recipient, decision } of sends) {
      if (decision.kind !== "send" || cancelled.has(key(recipient))) continue;
      if (!granted.has(key(recipient))) {
        halt(recipient, Math.ceil(CLAIM_RETRY_SECONDS));
        continue;
      }
      const existing = loaded.existing.get(key(recipient));
      const fields = { content: decision.content, subject: typeof decision.content.subject === "string" ? decision.content.subject : null, preview: preview(decision.content) };
      const messageId = existing ? existing.id : claimWrites.insertSending(identity(recipient.profile.subscriberId), fields);
      if (existing) claimWrites.update(job.environmentId, existing.id, "sending", fields, { status: "sending", detail: { attempt: existing.attempts + 1 } });
      toSend.push({ recipient, messageId, content: decision.content, attempts: existing?.attempts ?? 0, notes: recipient.notes });
      recipient.notes = [];
    }
    await runBatch(db, claimWrites.all());

    const results = new MessageWrites(db, new Date());
    const reports: { key: string; outcome: "sent" | "final" | "retry" }[] = [];
    const chain = loaded.integrations.get(step.type) ?? [];
    await Promise.all(
      toSend.map(async (send) => {
        const { recipient, messageId } = send;
        const { environmentId } = job;
        if (send.attempts === 0) {
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
          reports.push({ key: k, outcome: "sent" });
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
    await runBatch(db, results.all());
    if (reports.length) await coordinator.report(reports);
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
      await cancelRecipients(env, { ...job, subscriberIds: entries.flatMap((e) => e.job.subscriberIds) }, trigger);
      for (const r of all) if (r.state === "waiting") r.state = "stopped";
    }
  }
  const halted = all.filter((r) => r.state === "halted").map((r) => r.profile.subscriberId);
  const finished = all.filter((r) => r.state === "active" || r.state === "stopped").map((r) => r.profile.subscriberId);
  const completed = finished.length ? await coordinator.recipientsDone(job.chunk, finished) : false;
  return { retry: halted.length ? { subscriberIds: halted, delaySeconds: retryDelay } : null, exhausted, completed };
}

/** Another consumer holds a claim: look again after this long (its deadline, if it died). */
const CLAIM_RETRY_SECONDS = 30;

async function runActionStep(
  env: Bindings,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  step: Exclude<Step, ChannelStep>,
  index: number,
  recipients: Recipient[],
  coordinator: ReturnType<typeof triggerObject>,
) {
  const now = new Date();
  const passes = recipients.filter((r) => !step.if || evaluateCondition(step.if, contextFor(r, step), now));
  switch (step.type) {
    case "delay":
      for (const r of passes) {
        const plan = planDelay(step, contextFor(r, step), r.timezone, now);
        if (!plan.ok) {
          r.stop = { status: "failed", code: "invalid_delay", message: plan.message };
          continue;
        }
        r.steps[step.id] = { status: "sent" };
        if (plan.fireAt.getTime() - now.getTime() < NEGLIGIBLE_DELAY_MS) {
          if (plan.past) r.notes.push({ delay: step.id, until: plan.fireAt.toISOString(), note: "delay.until was in the past: sent at once" });
          continue;
        }
        r.state = "waiting";
        r.resumeAt = { fireAt: plan.fireAt.getTime(), fromStep: index + 1 };
        r.notes.push({ delay: step.id, delayedUntil: plan.fireAt.toISOString() });
      }
      return;
    case "throttle":
      await Promise.all(
        passes.map(async (r) => {
          const key = stepKey(step.key, contextFor(r, step));
          const name = JSON.stringify([job.environmentId, trigger.workflowKey, r.profile.subscriberId, key]);
          const passed = await env.THROTTLES.get(env.THROTTLES.idFromName(name)).take(job.transactionId, windowMs(step.window), step.limit);
          r.steps[step.id] = { status: passed ? "sent" : "skipped" };
          if (!passed) r.stop = { status: "skipped", code: "throttled", message: `More than ${step.limit} runs in ${step.window}.` };
        }),
      );
      return;
    case "digest":
      await Promise.all(
        passes.map(async (r) => {
          const key = stepKey(step.key, contextFor(r, step));
          const name = DigestObject.nameFor(job.environmentId, trigger.workflowKey, r.profile.subscriberId, key);
          const digest = env.DIGESTS.get(env.DIGESTS.idFromName(name));
          const resume: RecipientsJob = { ...job, subscriberIds: [r.profile.subscriberId], fromStep: index + 1, digest: undefined, digestedInto: undefined };
          await coordinator.joinedDigest(name);
          const decision = await digest.add({ transactionId: job.transactionId, payload: trigger.payload, job: resume }, step.id, windowMs(step.window), step.mode);
          if (decision === "continue") r.steps[step.id] = { status: "sent", events: [trigger.payload], count: 1 };
          else r.state = "digesting";
        }),
      );
      return;
  }
}

/** Records every step not yet done for these recipients as cancelled: nothing more of the trigger is sent. */
export const cancelRecipients = (env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot) =>
  closeRecipients(env, job, trigger, "cancelled", { reason: "trigger_cancelled" });

/** A recipients job the Queue gave up on: whatever it left unfinished fails, with the reason. */
export const failRecipients = (env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot, reason: string) =>
  closeRecipients(env, job, trigger, "failed", { reason: "dead_lettered", message: reason });

async function closeRecipients(
  env: Bindings,
  job: RecipientsJob,
  trigger: TriggerSnapshot,
  status: "cancelled" | "failed",
  detail: { reason: string; message?: string },
): Promise<number> {
  const db = createDb(env.DB);
  const loaded = await load(db, env, job, trigger);
  const writes = new MessageWrites(db, new Date());
  const error = status === "failed" ? { errorCode: detail.reason, errorMessage: detail.message ?? null } : {};
  let closed = 0;
  for (const step of loaded.workflow?.steps ?? []) {
    if (!isChannelStep(step)) continue;
    for (const subscriberId of job.subscriberIds) {
      const existing = loaded.existing.get(keyOf(subscriberId, step.id));
      if (existing && FINAL_OR_SENT.has(existing.status)) continue;
      closed++;
      if (existing) writes.update(job.environmentId, existing.id, status, error, { status, detail });
      else {
        writes.insertFinal(
          { environmentId: job.environmentId, transactionId: job.transactionId, subscriberId, workflowKey: trigger.workflowKey, stepId: step.id, channel: step.type },
          status,
          error,
          [{ status, detail }],
        );
      }
    }
  }
  await runBatch(db, writes.all());
  return closed;
}
