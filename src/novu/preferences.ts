// Novu's preference shapes over Clarion's (global channel flags and per-workflow overrides).
// Novu's `in_app` has no Clarion channel: it is accepted and answered as on.
import { z } from "@hono/zod-openapi";
import type { PreferenceChangeReason } from "../contract/subscriber-activity";
import type { Bindings } from "../env";
import { withDefaults } from "../features/subscribers/preferences";
import { changePreferences } from "../features/subscribers/change-preferences";
import type { Data } from "../features/data";
import type { SubscriberPreferences, SubscriberPreferencesUpdate } from "../features/subscribers/preferences-schemas";
import { subscriberMissing } from "./subscriber-store";
import type { SubscriberPreferences as StoredPreferences } from "../contract/preferences";
import { notFound } from "../lib/errors";

const CHANNELS = ["email", "sms", "push", "chat"] as const;
type Channel = (typeof CHANNELS)[number];
type Flags = Partial<Record<Channel, boolean>>;

export const NovuChannelType = z.enum(["email", "sms", "push", "chat", "in_app"]);

const NovuChannelFlags = z
  .object({ email: z.boolean(), sms: z.boolean(), push: z.boolean(), chat: z.boolean(), in_app: z.boolean() })
  .openapi("NovuChannelFlags");

export const NovuPreferencesV2 = z
  .object({
    global: z.object({ enabled: z.boolean(), channels: NovuChannelFlags }),
    workflows: z.array(
      z.object({
        enabled: z.boolean(),
        channels: NovuChannelFlags,
        overrides: z.array(z.unknown()),
        workflow: z.object({ slug: z.string(), identifier: z.string(), name: z.string() }),
      }),
    ),
  })
  .openapi("NovuPreferences");
export type NovuPreferencesV2 = z.infer<typeof NovuPreferencesV2>;

const flagsOf = (channels: Flags, base: Record<Channel, boolean>) => {
  const merged = { ...base, ...channels };
  return { ...merged, in_app: true };
};

/** Novu's v2 answer: the global flags, and one entry per workflow the subscriber has overrides for. */
export function toNovuPreferences(prefs: SubscriberPreferences): NovuPreferencesV2 {
  const global = flagsOf({}, prefs.channels);
  return {
    global: { enabled: true, channels: global },
    workflows: Object.entries(prefs.workflows).map(([key, flags]) => {
      const channels = flagsOf(flags, prefs.channels);
      return {
        enabled: CHANNELS.some((c) => channels[c]),
        channels,
        overrides: [],
        workflow: { slug: key, identifier: key, name: key },
      };
    }),
  };
}

export const NovuV1Preference = z
  .object({
    template: z.object({ _id: z.string(), name: z.string(), critical: z.boolean() }),
    preference: z.object({ enabled: z.boolean(), channels: NovuChannelFlags }),
  })
  .openapi("NovuV1Preference");
export type NovuV1Preference = z.infer<typeof NovuV1Preference>;

/** Novu's v1 list: `{ template, preference }` per workflow with overrides. */
export function toNovuV1Preferences(prefs: SubscriberPreferences): NovuV1Preference[] {
  const v2 = toNovuPreferences(prefs);
  return v2.workflows.map((w) => ({
    template: { _id: w.workflow.identifier, name: w.workflow.name, critical: false },
    preference: { enabled: w.enabled, channels: w.channels },
  }));
}

/** Novu's channel flags for Clarion's update: `in_app` is dropped. */
export const channelFlags = (flags: Partial<Record<string, boolean>>): Flags =>
  Object.fromEntries(CHANNELS.flatMap((c) => (typeof flags[c] === "boolean" ? [[c, flags[c]]] : [])));

/** `enabled: false` for a workflow turns off every channel of it; `true` turns them back on. */
export const allChannels = (enabled: boolean): Flags => Object.fromEntries(CHANNELS.map((c) => [c, enabled]));

export async function readPreferences(data: Data, subscriberId: string): Promise<SubscriberPreferences> {
  const stored = await data.preferences.find(subscriberId);
  if (stored === undefined) throw subscriberMissing(subscriberId);
  return withDefaults(stored);
}

/**
 * What a tenant's Inbox shows: the subscriber's preferences inside the tenant, each flag left
 * unset there read from their own (as delivery resolves it); the delivery schedule is their own.
 */
function layered(own: StoredPreferences | null, inside: StoredPreferences | null): SubscriberPreferences {
  const base = withDefaults(own);
  const workflows = { ...base.workflows };
  for (const [key, flags] of Object.entries(inside?.workflows ?? {})) workflows[key] = { ...workflows[key], ...flags };
  return { ...base, channels: { ...base.channels, ...inside?.channels }, workflows };
}

const tenantMissing = (tenantId: string) => notFound("tenant_not_found", `tenant "${tenantId}"`);

/** The preferences an Inbox session edits: the subscriber's own, or with a tenant, theirs inside it over their own. */
export async function readSessionPreferences(data: Data, subscriberId: string, tenantId: string | null): Promise<SubscriberPreferences> {
  if (!tenantId) return readPreferences(data, subscriberId);
  const [own, inside] = await Promise.all([data.preferences.find(subscriberId), data.tenantPreferences.find(subscriberId, tenantId)]);
  if (own === undefined || inside.status === "subscriber_not_found") throw subscriberMissing(subscriberId);
  if (inside.status === "tenant_not_found") throw tenantMissing(tenantId);
  return layered(own, inside.preferences);
}

/**
 * An Inbox session's change: with a tenant, its flags go to the subscriber's preferences inside the
 * tenant (`PUT /v1/subscribers/{id}/preferences?tenant=`), its schedule to their own.
 */
export async function mergeSessionPreferences(
  data: Data,
  env: Bindings,
  subscriberId: string,
  tenantId: string | null,
  update: SubscriberPreferencesUpdate,
): Promise<SubscriberPreferences> {
  if (!tenantId) return mergePreferences(data, env, subscriberId, update, "inbox");
  const { schedule, ...flags } = update;
  if (schedule !== undefined) await mergePreferences(data, env, subscriberId, { schedule }, "inbox");
  if (flags.channels || flags.workflows) {
    const changed = await data.tenantPreferences.change(subscriberId, tenantId, flags);
    if (changed.status === "subscriber_not_found") throw subscriberMissing(subscriberId);
    if (changed.status === "tenant_not_found") throw tenantMissing(tenantId);
  }
  return readSessionPreferences(data, subscriberId, tenantId);
}

export async function mergePreferences(
  data: Data,
  env: Bindings,
  subscriberId: string,
  update: SubscriberPreferencesUpdate,
  reason: Extract<PreferenceChangeReason, "api" | "inbox">,
): Promise<SubscriberPreferences> {
  const merged = await changePreferences(data, env, subscriberId, update, reason);
  if (merged === undefined) throw subscriberMissing(subscriberId);
  return withDefaults(merged);
}
