import type { JsonObject } from "../../contract/json";
import type { Db } from "../../db/client";
import { SETTLED_MESSAGE_STATUSES } from "../../contract/statuses";
import type { MessageStatus } from "../../db/schema";
import type { SubscriberPreferences } from "../../contract/preferences";
import type { StepOutcomeView, TemplateContext } from "../../engine/content";
import type { Bindings } from "../../env";
import { chainsFor, openIntegrations } from "../../db/queries/integrations";
import { openVariables } from "../../db/queries/variables";
import { sendSettingsRows } from "../../db/queries/send-settings";
import type { Step } from "../../engine/steps";
import type { UnsubscribeScope } from "../../contract/unsubscribe";
import { preferenceLinksRepository } from "../../db/queries/preference-link-settings";
import { linkSealer, linkUrls } from "../../lib/link-tokens";
import type { IntegrationConfig } from "../../providers/types";
import type { WaitHold } from "../../durable-objects/ledger/claims";
import type { RecipientProfile } from "../send/addresses";
import type { DeliveryContext, EnvironmentCache } from "../context";
import type { RecipientsJob } from "../../jobs/job";
import { TRANSLATOR, type Translator } from "../../engine/translate";
import { renderInputs } from "./render-inputs";
import type { MessageRow } from "../writes/message-writes";
import type { TriggerRecord } from "../../jobs/trigger-record";
import { type PinnedContent, pinnedContent } from "./render-content";
import { type LoadedTenant, tenantOfTrigger } from "./tenant";
import { mergeBrand } from "../../engine/tenant-brand";
import { allSteps } from "../../engine/workflow-tree";
import type { SubscriberRow } from "../../db/queries/recipient-reads";

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
  /** The subscriber's preferences inside the trigger's tenant; null without a tenant or none saved. */
  tenantPreferences?: SubscriberPreferences | null;
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
  notes: JsonObject[];
}
export interface Loaded {
  workflow: { key: string; name: string; critical: boolean; unsubscribe: UnsubscribeScope; tags?: string[]; steps: Step[] } | null;
  recipients: Map<string, Recipient>;
  existing: Map<string, MessageRow>;
  /** The failover chain per channel: the trigger's tenant's integrations first, then the environment's. */
  integrations: Map<string, IntegrationConfig[]>;
  /** The recipients' addresses on the suppression list, normalised. */
  suppressed: ReadonlySet<string>;
  /** Clear values of the environment's secret variables: redacted from every message stored. */
  secrets: string[];
  /** The layouts and partials of the trigger's content stamp. */
  content: PinnedContent;
  /** The trigger's tenant as it is now (its defaults decide after the subscriber's choices); null without one. */
  tenant?: LoadedTenant | null;
  /** The `t` filter's texts for a locale: a step that changes the subscriber's locale (update_subscriber) picks them again. */
  translatorFor?: (locale: string | null) => Translator | undefined;
}

/** A recipient's links when none are sealed: no row to seal them to, or nothing that shows them. */
const NO_LINKS = { unsubscribeUrl: "", preferencesUrl: "" } as const;

export const keyOf = (subscriberId: string, stepId: string) => `${subscriberId}\u0000${stepId}`;

function environmentData(db: Db, env: Bindings, environmentId: string, cache?: EnvironmentCache) {
  const hit = cache?.get(environmentId);
  if (hit) return hit;
  const data = sendSettingsRows(db, environmentId).then(async (rows) => {
    const [{ vars, secrets }, integrations, links] = await Promise.all([
      openVariables(rows.variables, environmentId, env.ENCRYPTION_KEY),
      openIntegrations(rows.integrations, env.ENCRYPTION_KEY),
      preferenceLinksRepository(db, environmentId, env.ENCRYPTION_KEY).opened(rows.links),
    ]);
    return { vars, secrets, integrations, linkSecret: links.secret, noEndpoints: rows.noEndpoints };
  });
  cache?.set(environmentId, data);
  data.catch(() => cache?.delete(environmentId));
  return data;
}

/** Columns of a subscriber's row a template does not see. */
const UNSEEN = new Set(["preferences", "id", "environmentId", "createdAt", "updatedAt"]);

/**
 * `subscriber` as templates see it: the row but its ids and preferences, times as ISO text. Built
 * key by key: spreading a rest of the row (and a conditional object) was 5 µs a recipient.
 */
function subscriberView(row: SubscriberRow): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  const columns: Record<string, unknown> = row;
  for (const key of Object.keys(row)) if (!UNSEEN.has(key)) view[key] = columns[key];
  view.createdAt = row.createdAt.toISOString();
  view.updatedAt = row.updatedAt.toISOString();
  return view;
}

/** Everything a chunk of recipients needs: its reads are shared with the chunks started with it (RecipientReads); variables and integrations come once per batch. */
export async function load(ctx: DeliveryContext, job: RecipientsJob, trigger: TriggerRecord): Promise<Loaded> {
  const { db, env } = ctx;
  const { environmentId, transactionId, subscriberIds } = job;
  const [rows, { vars, secrets, integrations, linkSecret }, content, tenancy] = await Promise.all([
    ctx.recipientReads.rows(environmentId, trigger, transactionId, subscriberIds),
    environmentData(db, env, environmentId, ctx.environments),
    pinnedContent(db, environmentId, trigger.contentStamp),
    tenantOfTrigger(db, environmentId, trigger, subscriberIds),
  ]);
  const tenant = tenancy?.tenant ?? null;
  const { subscribers: subscriberRows, channels: channelRows, messages: messageRows } = rows;
  const workflow = rows.workflow;
  const rendering = await renderInputs(db, environmentId, trigger, workflow?.steps ?? [], content);
  const actor = actorView(trigger.actor);
  const offersUnsubscribe = workflow !== null && !workflow.critical && workflow.unsubscribe !== "none";
  // Sealing a recipient's links was its largest cost in a push fan-out: done only for a template
  // that shows one, or an email's List-Unsubscribe header. Unsealed, they render empty, as unnamed.
  const sealsLinks = rendering.links || (offersUnsubscribe && allSteps(workflow?.steps ?? []).some((s) => s.type === "email"));
  const seal = sealsLinks ? await linkSealer(linkSecret, environmentId) : null;
  const rowOf = new Map(subscriberRows.map((s) => [s.subscriberId, s]));
  // Sealed to the subscriber's row: a recipient without one is stopped below, and gets no link.
  const links = await Promise.all(
    subscriberIds.map(async (subscriberId) => {
      const row = rowOf.get(subscriberId);
      return row && seal ? linkUrls(env.PUBLIC_URL, await seal(row.id, trigger.workflowKey, tenant?.id)) : NO_LINKS;
    }),
  );
  const recipients = new Map<string, Recipient>();
  const channelsOf = Map.groupBy(channelRows, (c) => c.subscriberId);
  for (const [i, subscriberId] of subscriberIds.entries()) {
    const { unsubscribeUrl, preferencesUrl } = links[i]!;
    const row = rowOf.get(subscriberId);
    const mine = channelsOf.get(subscriberId) ?? [];
    const preferences = row?.preferences;
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
        subscriber: row ? subscriberView(row) : { subscriberId },
        actor,
        vars,
        workflow: { key: trigger.workflowKey, name: workflow?.name ?? trigger.workflowKey },
        unsubscribe_url: offersUnsubscribe ? unsubscribeUrl : "",
        preferences_url: preferencesUrl,
        ...(rendering.brand ? { brand: mergeBrand(rendering.brand, tenant?.brand) } : {}),
        ...(tenant ? { tenant: { id: tenant.id, name: tenant.name, data: tenant.data } } : {}),
        [TRANSLATOR]: rendering.translatorFor(row?.locale ?? null),
      },
      listUnsubscribe: offersUnsubscribe && unsubscribeUrl ? unsubscribeUrl : null,
      preferences: preferences ?? null,
      tenantPreferences: tenancy?.preferences.get(subscriberId) ?? null,
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
  const suppressed = new Set(rows.suppressed);
  return {
    workflow,
    recipients,
    existing,
    integrations: chainsFor(integrations, tenant?.id),
    suppressed,
    secrets,
    content,
    tenant,
    translatorFor: rendering.translatorFor,
  };
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
