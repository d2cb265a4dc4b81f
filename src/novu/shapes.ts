// The bodies Novu's SDKs expect back, as zod schemas (for /openapi.json) and the mappers that
// turn Clarion's records into them.
import { z } from "@hono/zod-openapi";
import type { Accepted } from "../features/triggers/accept";
import type { Subscriber } from "../features/subscribers/schemas";
import type { Topic } from "../features/topics/schemas";
import { novuProviderOf } from "./providers";

/** Novu wraps every answer in `{ data }`; `@novu/api` unwraps it. */
export const envelope = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export const NovuChannelSettings = z
  .object({
    providerId: z.string(),
    credentials: z.object({
      webhookUrl: z.string().optional(),
      channel: z.string().optional(),
      deviceTokens: z.array(z.string()).optional(),
    }),
    _integrationId: z.string(),
  })
  .openapi("NovuChannelSettings");

export const NovuSubscriber = z
  .object({
    _id: z.string(),
    _organizationId: z.string().openapi({ description: "Clarion has no organisations: the environment's id." }),
    _environmentId: z.string(),
    subscriberId: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    avatar: z.string().nullable(),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    channels: z.array(NovuChannelSettings),
    deleted: z.literal(false),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    __v: z.literal(0),
  })
  .openapi("NovuSubscriber");
export type NovuSubscriber = z.infer<typeof NovuSubscriber>;

/** Push tokens grouped per provider, as Novu holds them; chat addresses one setting each. */
function channelSettings(channels: Subscriber["channels"]): NovuSubscriber["channels"] {
  const settings: NovuSubscriber["channels"] = [];
  for (const [provider, tokens] of Map.groupBy(channels.push, (p) => p.provider)) {
    const providerId = novuProviderOf(provider);
    if (providerId) settings.push({ providerId, credentials: { deviceTokens: tokens.map((t) => t.token) }, _integrationId: provider });
  }
  for (const address of channels.chat) {
    const providerId = novuProviderOf(address.provider);
    if (!providerId) continue;
    const credentials = "webhookUrl" in address ? { webhookUrl: address.webhookUrl } : { channel: address.channelId };
    settings.push({ providerId, credentials, _integrationId: address.provider });
  }
  return settings;
}

export const toNovuSubscriber = (environmentId: string, id: string, s: Subscriber): NovuSubscriber => ({
  _id: id,
  _organizationId: environmentId,
  _environmentId: environmentId,
  subscriberId: s.subscriberId,
  firstName: s.firstName,
  lastName: s.lastName,
  email: s.email,
  phone: s.phone,
  avatar: s.avatar,
  locale: s.locale,
  timezone: s.timezone,
  data: s.data,
  channels: channelSettings(s.channels),
  deleted: false,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  __v: 0,
});

export const NovuTopic = z
  .object({ _id: z.string(), key: z.string(), name: z.string(), createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() })
  .openapi("NovuTopic");
export type NovuTopic = z.infer<typeof NovuTopic>;

export const toNovuTopic = (t: Topic): NovuTopic => ({
  _id: t.id,
  key: t.key,
  name: t.name,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

export const NovuTriggerResponse = z
  .object({
    acknowledged: z.boolean(),
    status: z.enum(["processed", "error"]).openapi({
      description: "`processed` once the trigger is durable (Clarion's `accepted`: Novu's SDK knows no such status).",
    }),
    transactionId: z.string().optional(),
    error: z.array(z.string()).optional(),
  })
  .openapi("NovuTriggerResponse");
export type NovuTriggerResponse = z.infer<typeof NovuTriggerResponse>;

export const toNovuTrigger = (accepted: Accepted): NovuTriggerResponse => ({
  acknowledged: true,
  status: "processed",
  transactionId: accepted.transactionId,
  ...(accepted.invalidRecipients.length
    ? {
        error: accepted.invalidRecipients.map(
          (r) => `Recipient ${r.index}${r.subscriberId ? ` (${r.subscriberId})` : ""}: ${r.errors.map((e) => e.message).join("; ")}`,
        ),
      }
    : {}),
});

export const NovuDeleted = z.object({ acknowledged: z.literal(true), status: z.literal("deleted") }).openapi("NovuDeleted");
