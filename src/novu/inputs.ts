// What Novu's SDKs send, and its translation into Clarion's own requests. Fields Novu has and
// Clarion does not (`bridgeUrl`, `controls`, `integrationIdentifier`, …) are
// accepted and ignored: zod objects drop keys they do not name.
import { z } from "@hono/zod-openapi";
import type { SubscriberInput } from "../contract/recipients";
import { addressesOf, NOVU_PROVIDER_IDS, type NovuCredentials } from "./providers";

export const NovuCredentialsInput = z.object({
  webhookUrl: z.string().optional(),
  channel: z.string().optional(),
  deviceTokens: z.array(z.string()).max(50).optional(),
});

export const NovuChannelInput = z.object({
  providerId: z.string().openapi({ description: `One of ${NOVU_PROVIDER_IDS.map((p) => `\`${p}\``).join(", ")}.` }),
  credentials: NovuCredentialsInput,
  integrationIdentifier: z.string().optional(),
});

const profile = {
  firstName: z.string().nullable().optional(),
  lastName: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  avatar: z.string().nullable().optional(),
  locale: z.string().nullable().optional(),
  timezone: z.string().nullable().optional(),
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  channels: z.array(NovuChannelInput).max(50).optional(),
};

const SUBSCRIBER_EXAMPLE = {
  subscriberId: "user-42",
  email: "ada@example.com",
  firstName: "Ada",
  lastName: "Lovelace",
  locale: "en",
  data: { plan: "pro" },
};

export const NovuSubscriberInput = z
  .object({ subscriberId: z.string().min(1).max(256), ...profile })
  .openapi("NovuSubscriberInput", { example: SUBSCRIBER_EXAMPLE });
export type NovuSubscriberInput = z.infer<typeof NovuSubscriberInput>;

export const NovuSubscriberUpdate = z.object(profile).openapi("NovuSubscriberUpdate", { example: { firstName: "Ada", locale: "en" } });
export type NovuSubscriberUpdate = z.infer<typeof NovuSubscriberUpdate>;

/** Novu writes `en_US`; Clarion takes BCP 47 (`en-US`). */
const bcp47 = (locale: string | null | undefined) => (typeof locale === "string" ? locale.replaceAll("_", "-") : locale);

/** Clarion's subscriber input for Novu's. Left unvalidated: Clarion's own schema checks it next. */
export function toSubscriberInput(subscriberId: string, novu: NovuSubscriberUpdate): SubscriberInput {
  const { channels, locale, ...rest } = novu;
  const input: Record<string, unknown> = { subscriberId, ...rest };
  if (locale !== undefined) input.locale = bcp47(locale);
  if (channels) {
    const push: unknown[] = [];
    const chat: unknown[] = [];
    for (const setting of channels) {
      const addresses = addressesOf(setting.providerId, setting.credentials);
      push.push(...(addresses?.push ?? []));
      chat.push(...(addresses?.chat ?? []));
    }
    input.channels = { ...(push.length ? { push } : {}), ...(chat.length ? { chat } : {}) };
  }
  return input as SubscriberInput;
}

/** Novu's providers Clarion cannot deliver to, named so the caller learns it rather than losing the address. */
export const unknownProviders = (channels: readonly { providerId: string }[] | undefined) =>
  (channels ?? []).flatMap((c, i) =>
    NOVU_PROVIDER_IDS.includes(c.providerId)
      ? []
      : [{ path: `channels.${i}.providerId`, message: `Unsupported providerId "${c.providerId}".` }],
  );

/** A recipient as Novu writes it: a subscriberId, a subscriber, or `{ type: "Topic", topicKey }` (Clarion's `{ topic }`). */
function toRecipient(recipient: unknown): unknown {
  if (typeof recipient !== "object" || recipient === null || Array.isArray(recipient)) return recipient;
  const r = recipient as Record<string, unknown>;
  if (r.type === "Topic") return { topic: r.topicKey, ...(r.exclude ? { exclude: r.exclude } : {}) };
  const parsed = NovuSubscriberInput.safeParse(recipient);
  return parsed.success ? toSubscriberInput(parsed.data.subscriberId, parsed.data) : recipient;
}

const TRIGGER_EXAMPLE = {
  name: "order-shipped",
  to: { subscriberId: "user-42", email: "ada@example.com" },
  payload: { orderId: "A-1001" },
};

const NovuRecipient = z.union([z.string(), z.record(z.string(), z.unknown())]).openapi({
  description: 'A subscriberId, a subscriber (upserted inline) or `{ type: "Topic", topicKey }`.',
});

const triggerFields = {
  name: z.string().min(1).max(64).openapi({ description: "The workflow key (Novu's workflow identifier)." }),
  payload: z.record(z.string(), z.unknown()).optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  transactionId: z.string().optional(),
  actor: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  tenant: z
    .unknown()
    .optional()
    .openapi({ description: "Novu's legacy tenant: its identifier, or `{ identifier, name?, data? }`; becomes the trigger's `tenant`." }),
  bridgeUrl: z.string().optional().openapi({ description: "Accepted and ignored: Clarion's workflows live in Clarion." }),
  controls: z.unknown().optional().openapi({ description: "Accepted and ignored." }),
  context: z
    .unknown()
    .optional()
    .openapi({ description: "Novu's context: `tenant` becomes the trigger's tenant, other keys its `context` (at most 5 in all)." }),
};

export const NovuTriggerInput = z
  .object({ ...triggerFields, to: z.union([NovuRecipient, z.array(NovuRecipient).min(1).max(100)]) })
  .openapi("NovuTriggerInput", { example: TRIGGER_EXAMPLE });
export type NovuTriggerInput = z.infer<typeof NovuTriggerInput>;

export const NovuBroadcastInput = z
  .object(triggerFields)
  .openapi("NovuBroadcastInput", { example: { name: "order-shipped", payload: { orderId: "A-1001" } } });
export type NovuBroadcastInput = z.infer<typeof NovuBroadcastInput>;

export const NovuBulkTriggerInput = z
  .object({ events: z.array(z.unknown()).min(1).max(100) })
  .openapi("NovuBulkTriggerInput", { example: { events: [TRIGGER_EXAMPLE, { ...TRIGGER_EXAMPLE, to: "user-43" }] } });

/** Clarion's `POST /v1/trigger` body for Novu's; Clarion's schema validates it next. */
export function toTriggerBody(novu: NovuBroadcastInput & { to?: unknown }): Record<string, unknown> {
  const to = novu.to === undefined ? undefined : Array.isArray(novu.to) ? novu.to.map(toRecipient) : toRecipient(novu.to);
  return {
    workflow: novu.name,
    ...(to === undefined ? {} : { to }),
    ...(novu.payload ? { payload: novu.payload } : {}),
    ...(novu.overrides && Object.keys(novu.overrides).length ? { overrides: novu.overrides } : {}),
    ...(novu.transactionId ? { transactionId: novu.transactionId } : {}),
    ...(novu.actor === undefined ? {} : { actor: toRecipient(novu.actor) }),
    ...(novu.tenant === undefined || novu.tenant === null ? {} : { tenant: legacyTenant(novu.tenant) }),
    ...(novu.context === undefined || novu.context === null ? {} : { context: novu.context }),
  };
}

/** Novu's legacy `tenant` (`"acme"` or `{ identifier, name, data }`) in Clarion's words; anything else is passed on for Clarion's schema to refuse. */
function legacyTenant(tenant: unknown): unknown {
  if (typeof tenant !== "object" || tenant === null || Array.isArray(tenant) || !("identifier" in tenant)) return tenant;
  const { identifier, ...rest } = tenant as Record<string, unknown>;
  return { id: identifier, ...rest };
}

export type { NovuCredentials };
