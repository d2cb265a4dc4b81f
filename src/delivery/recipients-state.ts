import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { SETTLED_MESSAGE_STATUSES } from "../contract/statuses";
import { messages, subscriberChannels, subscribers, workflows, workflowVersions, type MessageStatus } from "../db/schema";
import type { SubscriberPreferences } from "../contract/preferences";
import type { StepOutcomeView, TemplateContext } from "../engine/content";
import type { Bindings } from "../env";
import { activeIntegrations } from "../db/queries/integrations";
import { loadTemplateVariables } from "../db/queries/variables";
import { suppressedAddressReads } from "../db/queries/suppressions";
import type { Step } from "../engine/steps";
import type { UnsubscribeScope } from "../contract/unsubscribe";
import { preferenceLinksRepository } from "../db/queries/preference-link-settings";
import { preferenceLinks } from "../lib/link-tokens";
import type { IntegrationConfig } from "../providers/types";
import type { WaitHold } from "../durable-objects/ledger/claims";
import type { RecipientProfile } from "./addresses";
import type { DeliveryContext, EnvironmentCache } from "./context";
import type { RecipientsJob } from "./job";
import type { MessageRow } from "./message-writes";
import type { TriggerRecord } from "./trigger-record";

/** Statuses after which a message is never sent again. */
export const FINAL_OR_SENT: ReadonlySet<MessageStatus> = new Set(SETTLED_MESSAGE_STATUSES);

/** Why a recipient's remaining channel steps are recorded without a send. */
export interface Stop {
  status: "skipped" | "failed" | "cancelled";
  code: string;
  message: string;
}

export interface Recipient {
  profile: RecipientProfile;
  context: Omit<TemplateContext, "step" | "steps">;
  preferences: SubscriberPreferences | null;
  /** The one-click URL every email to this recipient names in `List-Unsubscribe`; null when the workflow offers none. */
  listUnsubscribe: string | null;
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
  resumeAt?: { fireAt: number; fromStep: number; hold: WaitHold };
  /** Said in the tracking log of the recipient's next message (a delay whose time had passed). */
  notes: Record<string, unknown>[];
}

export interface Loaded {
  workflow: { key: string; name: string; critical: boolean; unsubscribe: UnsubscribeScope; tags?: string[]; steps: Step[] } | null;
  recipients: Map<string, Recipient>;
  existing: Map<string, MessageRow>;
  integrations: Map<string, IntegrationConfig[]>;
  /** The recipients' addresses on the suppression list, normalised. */
  suppressed: ReadonlySet<string>;
  /** Clear values of the environment's secret variables: redacted from every message stored. */
  secrets: string[];
}

export const keyOf = (subscriberId: string, stepId: string) => `${subscriberId}\u0000${stepId}`;

function environmentData(db: Db, env: Bindings, environmentId: string, cache?: EnvironmentCache) {
  const hit = cache?.get(environmentId);
  if (hit) return hit;
  const data = Promise.all([
    loadTemplateVariables(db, environmentId, env.ENCRYPTION_KEY),
    activeIntegrations(db, environmentId, env.ENCRYPTION_KEY),
    preferenceLinksRepository(db, environmentId, env.ENCRYPTION_KEY).get(),
  ]).then(([{ vars, secrets }, integrations, links]) => ({ vars, secrets, integrations, linkSecret: links.secret }));
  cache?.set(environmentId, data);
  data.catch(() => cache?.delete(environmentId));
  return data;
}

/** The trigger's workflow, deleted or not, by the id it was accepted with; older records name only a live key. */
const workflowOf = (trigger: TriggerRecord) =>
  trigger.workflowId ? eq(workflows.id, trigger.workflowId) : and(eq(workflows.key, trigger.workflowKey), isNull(workflows.deletedAt));

/**
 * The workflow's content as the trigger was accepted: its version when the record names one (the
 * same single read, from the versions), else the row, deleted or not.
 */
function workflowRead(db: Db, environmentId: string, trigger: TriggerRecord) {
  if (trigger.workflowId && trigger.workflowVersion) {
    const definition = workflowVersions.definition;
    return (
      db
        .select({
          key: workflowVersions.workflowKey,
          name: sql<string>`json_extract(${definition}, '$.name')`,
          critical: sql<boolean>`json_extract(${definition}, '$.critical')`.mapWith(Boolean),
          unsubscribe: sql<UnsubscribeScope>`json_extract(${definition}, '$.unsubscribe')`,
          tags: sql<string[]>`json_extract(${definition}, '$.tags')`.mapWith((v: string) => JSON.parse(v) as string[]),
          steps: sql<Step[]>`json_extract(${definition}, '$.steps')`.mapWith((v: string) => JSON.parse(v) as Step[]),
        })
        .from(workflowVersions)
        // The row must still be there (live or a tombstone): a purged workflow fails its runs, as before versions.
        .innerJoin(workflows, eq(workflows.id, workflowVersions.workflowId))
        .where(
          and(
            eq(workflowVersions.environmentId, environmentId),
            eq(workflowVersions.workflowId, trigger.workflowId),
            eq(workflowVersions.version, trigger.workflowVersion),
          ),
        )
        .limit(1)
    );
  }
  return db
    .select({
      key: workflows.key,
      name: workflows.name,
      critical: workflows.critical,
      unsubscribe: workflows.unsubscribe,
      tags: workflows.tags,
      steps: workflows.steps,
    })
    .from(workflows)
    .where(and(eq(workflows.environmentId, environmentId), workflowOf(trigger)))
    .limit(1);
}

/** Everything a chunk of recipients needs: its reads join the phase's shared D1 batch; variables and integrations come once per batch. */
export async function load(ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerRecord): Promise<Loaded> {
  const { db, env } = ctx;
  const { environmentId, transactionId, subscriberIds } = job;
  const [reads, { vars, secrets, integrations, linkSecret }] = await Promise.all([
    ctx.write([
      workflowRead(db, environmentId, trigger),
      db
        .select()
        .from(subscribers)
        .where(and(eq(subscribers.environmentId, environmentId), inArray(subscribers.subscriberId, subscriberIds))),
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
      ...suppressedAddressReads(db, environmentId, subscriberIds),
    ]),
    environmentData(db, env, environmentId, ctx.environments),
  ]);
  const [workflowRows, subscriberRows, channelRows, messageRows, suppressedProfiles, suppressedChannels] = reads as [
    Pick<typeof workflows.$inferSelect, "key" | "name" | "critical" | "unsubscribe" | "tags" | "steps">[],
    (typeof subscribers.$inferSelect)[],
    (typeof subscriberChannels.$inferSelect)[],
    MessageRow[],
    { address: string }[],
    { address: string }[],
  ];
  const workflow = workflowRows[0] ?? null;
  const actor = actorView(trigger.actor);
  const offersUnsubscribe = workflow !== null && !workflow.critical && workflow.unsubscribe !== "none";
  const links = await Promise.all(
    subscriberIds.map((subscriberId) =>
      preferenceLinks(env.PUBLIC_URL, linkSecret, { environmentId, subscriberId, workflowKey: trigger.workflowKey }),
    ),
  );
  const recipients = new Map<string, Recipient>();
  for (const [i, subscriberId] of subscriberIds.entries()) {
    const { unsubscribeUrl, preferencesUrl } = links[i]!;
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
        unsubscribe_url: offersUnsubscribe ? unsubscribeUrl : "",
        preferences_url: preferencesUrl,
      },
      listUnsubscribe: offersUnsubscribe ? unsubscribeUrl : null,
      preferences: preferences ?? null,
      locale: row?.locale ?? null,
      timezone: row?.timezone ?? null,
      steps: {},
      state: "active",
      // Without a record there are no addresses either; saying "no address" would hide that the id is wrong.
      ...(row ? {} : { stop: subscriberNotFound(subscriberId) }),
      notes: [],
    });
  }
  const existing = new Map(messageRows.map((m) => [keyOf(m.subscriberId, m.stepId), m]));
  const suppressed = new Set([...suppressedProfiles, ...suppressedChannels].map((s) => s.address));
  return { workflow, recipients, existing, integrations, suppressed, secrets };
}

/** A recipient id with no subscriber in the environment: each of its messages is skipped for this reason. */
const subscriberNotFound = (subscriberId: string): Stop => ({
  status: "skipped",
  code: "subscriber_not_found",
  message: `No subscriber "${subscriberId}" in this environment: create it first, or trigger with the subscriber inline ({ subscriberId, email, ... }).`,
});

const actorView = (actor: unknown): Record<string, unknown> | null =>
  typeof actor === "string" ? { subscriberId: actor } : actor && typeof actor === "object" ? (actor as Record<string, unknown>) : null;

export const contextFor = (recipient: Recipient, step: Step): TemplateContext => ({
  ...recipient.context,
  steps: recipient.steps,
  step: { id: step.id, type: step.type },
});
