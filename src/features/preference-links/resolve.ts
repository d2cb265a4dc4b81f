import type { Branding } from "../../db/queries/preference-link-settings";
import type { Bindings } from "../../env";
import { openToken, tokenEnvironment, type LinkClaims } from "../../lib/link-tokens";
import { readLegacyClaims, verifyLegacyToken } from "./legacy-tokens";
import type { SubscriberPreferences } from "../../contract/preferences";
import { messagesFor } from "./messages";
import { type Data, dataOf } from "../data";
import { brandingOf } from "./brand-view";
import { mergeBrand } from "../../engine/tenant-brand";

export interface LinkTarget extends LinkClaims {
  /** The repositories of the environment the token names. */
  data: Data;
  branding: Branding;
  preferences: SubscriberPreferences | null;
  /** The pages' texts in the subscriber's locale, where the environment translated them. */
  messages: ReturnType<typeof messagesFor>;
  /** A 0.12 token (readable, not bound to the subscriber's incarnation): good for one-click unsubscribe only. */
  legacy: boolean;
  /** The tenant of the link's message: the page shows its brand and changes the subscriber's preferences inside it. */
  tenantId: string | null;
}

/**
 * `unsubscribe`: the `/u` pages, which also honour the tokens of emails sent by 0.12 so their
 * `List-Unsubscribe` keeps working; `preferences`: the `/p` page, sealed tokens only.
 */
export type LinkUse = "unsubscribe" | "preferences";

/**
 * The subscriber a link is for, or null: a token that is malformed, sealed under another or a
 * rotated secret, or names an erased subscriber (also one whose subscriberId was created again
 * since) all end here alike, so a 404 tells nothing.
 */
export async function resolveLink(env: Bindings, token: string, use: LinkUse): Promise<LinkTarget | null> {
  const legacy = readLegacyClaims(token);
  const environmentId = legacy?.environmentId ?? tokenEnvironment(token);
  if (!environmentId || (legacy && use !== "unsubscribe")) return null;
  const data = dataOf(env, environmentId);
  const settings = await data.preferenceLinks.find().catch(() => undefined);
  if (!settings) return null;
  const pages = data.preferencePages;
  let workflowKey: string | null;
  let tenantId: string | null = null;
  let subscriber: Awaited<ReturnType<typeof pages.subscriber>>;
  if (legacy) {
    if (!(await verifyLegacyToken(settings.secret, token))) return null;
    workflowKey = legacy.workflowKey;
    subscriber = await pages.subscriber({ subscriberId: legacy.subscriberId });
  } else {
    const sealed = await openToken(settings.secret, token);
    if (!sealed) return null;
    workflowKey = sealed.workflowKey;
    tenantId = sealed.tenantId;
    subscriber = await pages.subscriber({ rowId: sealed.subscriberRowId });
  }
  if (subscriber === undefined) return null;
  const [brand, tenant, scoped] = await Promise.all([
    data.brand.get(),
    tenantId ? data.tenants.find(tenantId) : null,
    tenantId ? data.tenantPreferences.find(subscriber.subscriberId, tenantId) : null,
  ]);
  // A tenant deleted since the email was sent: the environment's brand and the subscriber's own preferences.
  const inTenant = tenant && scoped?.status === "ok" ? { tenant, preferences: scoped.preferences } : null;
  const branding = brandingOf(mergeBrand(brand.definition, inTenant?.tenant.brand), settings.translations);
  return {
    environmentId,
    subscriberId: subscriber.subscriberId,
    workflowKey,
    data,
    branding,
    preferences: inTenant ? inTenant.preferences : subscriber.preferences,
    messages: messagesFor(branding.translations, subscriber.locale),
    legacy: legacy !== null,
    tenantId: inTenant ? inTenant.tenant.id : null,
  };
}
