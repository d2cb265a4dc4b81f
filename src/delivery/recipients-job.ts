import { and, eq, inArray } from "drizzle-orm";
import { createDb, type Db } from "../db/client";
import { runBatch } from "../db/batch";
import { messages, subscriberChannels, subscribers, workflows, type MessageStatus } from "../db/schema";
import type { StepOutcomeView, TemplateContext } from "../engine/content";
import { evaluateCondition } from "../engine/conditions";
import { applyOverrides, renderChannel } from "../engine/templates";
import { triggerObject, type TriggerSnapshot } from "../durable-objects/trigger-client";
import type { Bindings } from "../env";
import { activeIntegrations } from "../features/integrations/repository";
import { isChannelAllowed } from "../features/subscribers/preferences";
import { loadTemplateVariables } from "../features/variables/repository";
import { isChannelStep, type ChannelStep, type Step } from "../features/workflows/steps";
import type { IntegrationConfig } from "../providers/types";
import { addressesFor, type RecipientProfile } from "./addresses";
import { retryDelaySeconds } from "./backoff";
import type { RecipientsJob } from "./job";
import { MessageWrites, type MessageRow, type SendIdentity } from "./message-writes";
import { integrationForAttempt, sendMessage } from "./send-message";
import { decorateEmail } from "./tracking-links";

/** A message claimed longer ago than this without a result is presumed lost and sent again. */
export const SENDING_DEADLINE_MS = 60_000;
const TERMINAL_OR_SENT: ReadonlySet<MessageStatus> = new Set([
  "sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled",
]);

interface Recipient {
  profile: RecipientProfile;
  context: Omit<TemplateContext, "step">;
  preferences: Parameters<typeof isChannelAllowed>[0];
  locale: string | null;
  steps: Record<string, StepOutcomeView>;
  /** Waiting for a retry or for another consumer's send: later steps must wait too. */
  halted: boolean;
}

export interface RecipientsResult {
  /** Subscribers whose delivery must continue later, and when. */
  retry: { subscriberIds: string[]; delaySeconds: number } | null;
  /** Messages that failed for good after every provider's attempts: reasons for the dead-letter queue. */
  exhausted: { messageId?: string; reason: string }[];
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
        .where(
          and(
            eq(messages.environmentId, environmentId),
            eq(messages.transactionId, transactionId),
            inArray(messages.subscriberId, subscriberIds),
          ),
        ),
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
        steps: {},
      },
      preferences: preferences ?? null,
      locale: row?.locale ?? null,
      steps: {},
      halted: false,
    });
  }
  const existing = new Map(messageRows.map((m) => [keyOf(m.subscriberId, m.stepId), m]));
  return { workflow, recipients, existing, integrations };
}

const actorView = (actor: unknown): Record<string, unknown> | null =>
  typeof actor === "string" ? { subscriberId: actor } : actor && typeof actor === "object" ? (actor as Record<string, unknown>) : null;

/** A short plain-text view for message lists: the text part, else the HTML without its tags. */
const preview = (content: Record<string, unknown>) => {
  const plain = [content.text, content.body, content.title].find((v): v is string => typeof v === "string" && v !== "");
  const html = typeof content.html === "string" ? content.html.replace(/<(style|script)[\s\S]*?<\/\1>/gi, "").replace(/<[^>]+>/g, " ") : "";
  return (plain ?? html).replace(/\s+/g, " ").trim().slice(0, 140);
};

type Decision =
  | { kind: "done"; status: string }
  | { kind: "halt" }
  | { kind: "final"; status: MessageStatus; code: string; message: string; existing?: MessageRow }
  | { kind: "send"; content: Record<string, unknown>; existing?: MessageRow };

/** Decides, without I/O, what one channel step does for one recipient. */
function decide(
  step: ChannelStep,
  recipient: Recipient,
  loaded: Loaded,
  trigger: TriggerSnapshot,
  now: Date,
): Decision {
  const existing = loaded.existing.get(keyOf(recipient.profile.subscriberId, step.id));
  if (existing) {
    if (TERMINAL_OR_SENT.has(existing.status)) return { kind: "done", status: existing.status };
    const stale = existing.status === "sending" && existing.updatedAt.getTime() < now.getTime() - SENDING_DEADLINE_MS;
    if (existing.status === "sending" && !stale) return { kind: "halt" };
  }
  const final = (status: MessageStatus, code: string, message: string): Decision => ({
    kind: "final",
    status,
    code,
    message,
    ...(existing ? { existing } : {}),
  });
  const context: TemplateContext = { ...recipient.context, steps: recipient.steps, step: { id: step.id, type: step.type } };
  if (step.if && !evaluateCondition(step.if, context, now)) {
    return final("skipped", "condition", "The step's condition was false.");
  }
  if (!isChannelAllowed(recipient.preferences, trigger.workflowKey, step.type, loaded.workflow?.critical ?? false)) {
    return final("skipped", "preference", `The subscriber opted out of ${step.type}.`);
  }
  const chain = loaded.integrations.get(step.type) ?? [];
  if (addressesFor(step.type, recipient.profile, chain[0]).length === 0) {
    return final("skipped", "missing_address", `The subscriber has no ${step.type} address.`);
  }
  if (chain.length === 0) {
    return final("failed", "no_integration", `No active ${step.type} integration in this environment.`);
  }
  const rendered = renderChannel(step, context, recipient.locale);
  if (!rendered.ok) return final("failed", rendered.code, rendered.message);
  const content = applyOverrides(step.type, rendered.content, trigger.overrides ?? {}) as unknown as Record<string, unknown>;
  return { kind: "send", content, ...(existing ? { existing } : {}) };
}

/**
 * Runs a workflow's steps for a slice of a trigger's recipients. Each step is one phase for
 * all recipients: decide (no I/O), one D1 batch that records skips and claims sends, the sends
 * in parallel, then one D1 batch with their results. D1 sees two batches per step whatever
 * the number of recipients, and a claim never lets a redelivered job send twice.
 */
export async function runRecipients(env: Bindings, job: RecipientsJob, trigger: TriggerSnapshot, publicUrl: string): Promise<RecipientsResult> {
  const db = createDb(env.DB);
  const loaded = await load(db, env, job, trigger);
  const exhausted: RecipientsResult["exhausted"] = [];
  let retryDelay = Number.POSITIVE_INFINITY;
  const identity = (subscriberId: string, step: Step): SendIdentity => ({
    environmentId: job.environmentId,
    transactionId: job.transactionId,
    subscriberId,
    workflowKey: trigger.workflowKey,
    stepId: step.id,
    channel: step.type,
  });

  if (!loaded.workflow) {
    return { retry: null, exhausted: [{ reason: `workflow "${trigger.workflowKey}" no longer exists` }] };
  }

  for (const step of loaded.workflow.steps) {
    // Action steps (delay, digest, throttle) are coordinated by the trigger's Durable Object.
    if (!isChannelStep(step)) continue;
    const now = new Date();
    const claimWrites = new MessageWrites(db, now);
    const sends: { recipient: Recipient; messageId: string; content: Record<string, unknown>; attempts: number; key: string }[] = [];

    for (const recipient of loaded.recipients.values()) {
      if (recipient.halted) continue;
      const decision = decide(step, recipient, loaded, trigger, now);
      const id = identity(recipient.profile.subscriberId, step);
      switch (decision.kind) {
        case "done":
          recipient.steps[step.id] = { status: decision.status };
          break;
        case "halt":
          recipient.halted = true;
          retryDelay = Math.min(retryDelay, Math.ceil(SENDING_DEADLINE_MS / 1000));
          break;
        case "final": {
          const error = decision.status === "skipped" ? {} : { errorCode: decision.code, errorMessage: decision.message };
          const event = { status: decision.status, detail: { reason: decision.code, message: decision.message } };
          if (decision.existing) claimWrites.update(job.environmentId, decision.existing.id, decision.status, error, event);
          else claimWrites.insertFinal(id, decision.status, error, [event]);
          recipient.steps[step.id] = { status: decision.status };
          break;
        }
        case "send": {
          const key = keyOf(recipient.profile.subscriberId, step.id);
          const fields = { content: decision.content, subject: typeof decision.content.subject === "string" ? decision.content.subject : null, preview: preview(decision.content) };
          if (decision.existing) {
            claimWrites.claimExisting(key, decision.existing, new Date(now.getTime() - SENDING_DEADLINE_MS));
            sends.push({ recipient, messageId: decision.existing.id, content: decision.content, attempts: decision.existing.attempts, key });
          } else {
            const messageId = claimWrites.claimNew(key, id, fields);
            sends.push({ recipient, messageId, content: decision.content, attempts: 0, key });
          }
        }
      }
    }

    const claimResults = await runBatch(db, claimWrites.all());
    const won = new Set(
      claimWrites.claims.filter((c) => (claimResults[c.index] as unknown[] | undefined)?.length).map((c) => c.key),
    );
    const results = new MessageWrites(db, new Date());
    const chain = loaded.integrations.get(step.type) ?? [];

    await Promise.all(
      sends.map(async (send) => {
        const { recipient, messageId } = send;
        const { environmentId } = job;
        if (!won.has(send.key)) {
          recipient.halted = true;
          retryDelay = Math.min(retryDelay, Math.ceil(SENDING_DEADLINE_MS / 1000));
          return;
        }
        if (send.attempts === 0) results.event(environmentId, messageId, { status: "queued" }, now);
        results.event(environmentId, messageId, { status: "sending", detail: { attempt: send.attempts + 1 } }, now);
        const integration = integrationForAttempt(chain, send.attempts)!;
        const addresses = addressesFor(step.type, recipient.profile, integration);
        const content =
          step.type === "email" ? await decorateEmail(env, publicUrl, messageId, send.content, step.tracking) : send.content;
        const { outcome, captures, invalidAddresses } = await sendMessage(integration, addresses, {
          messageId,
          content: content as never,
          providerOverrides: (trigger.overrides?.[integration.provider] as Record<string, unknown> | undefined) ?? {},
          subscriber: { subscriberId: recipient.profile.subscriberId, firstName: null, lastName: null },
        });
        const attempts = send.attempts + 1;
        const base = { provider: integration.provider, integrationId: integration.id, to: addresses.join(", "), attempts };
        for (const c of captures) results.capture(environmentId, messageId, c);
        if (step.type === "push" || step.type === "chat") {
          results.removeAddresses(environmentId, recipient.profile.subscriberId, step.type, invalidAddresses);
        }
        if (outcome.ok) {
          results.update(environmentId, messageId, "sent", { ...base, providerMessageId: outcome.providerMessageId, errorCode: null, errorMessage: null }, {
            status: "sent",
            detail: { provider: integration.provider, providerMessageId: outcome.providerMessageId },
          });
          recipient.steps[step.id] = { status: "sent" };
          return;
        }
        const error = { errorCode: outcome.code, errorMessage: outcome.message };
        if (outcome.kind === "retryable" && integrationForAttempt(chain, attempts)) {
          const next = integrationForAttempt(chain, attempts)!;
          const delay = next.id === integration.id ? retryDelaySeconds(attempts, outcome.retryAfterSeconds) : 1;
          results.update(environmentId, messageId, "queued", { ...base, ...error }, {
            status: "queued",
            detail: { retryInSeconds: delay, error: outcome.code, message: outcome.message, nextProvider: next.provider },
          });
          recipient.halted = true;
          retryDelay = Math.min(retryDelay, delay);
          return;
        }
        const status: MessageStatus = outcome.kind === "invalid_recipient" ? "undeliverable" : "failed";
        results.update(environmentId, messageId, status, { ...base, ...error }, {
          status,
          detail: { error: outcome.code, message: outcome.message, provider: integration.provider },
        });
        recipient.steps[step.id] = { status };
        if (outcome.kind === "retryable") {
          exhausted.push({ messageId, reason: `failed after ${attempts} attempts over ${chain.length} provider(s): ${outcome.code}` });
        }
      }),
    );
    await runBatch(db, results.all());
  }

  const waiting = [...loaded.recipients.values()].filter((r) => r.halted).map((r) => r.profile.subscriberId);
  return { retry: waiting.length ? { subscriberIds: waiting, delaySeconds: retryDelay } : null, exhausted };
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
      if (existing && TERMINAL_OR_SENT.has(existing.status)) continue;
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
