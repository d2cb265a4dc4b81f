// Who a notification is addressed to: the subscriber and recipient shapes the API accepts
// (`/sub`, `/sub/bulk`, the `to` and `actor` of a trigger). They sit below every layer because
// the queue consumer reads them back from a trigger's record and upserts inline subscribers.
import { z } from "@hono/zod-openapi";
import { addressLengthProblem, hasLineBreak, LINE_BREAK_MESSAGE, MAX_ADDRESS, MAX_LOCAL_PART } from "./email-address";

const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, "Use E.164 format, e.g. +41791234567.");

const isTimeZone = (value: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

/** A BCP 47 language tag, as `Intl` reads one. */
export const isLocale = (value: string) => {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

export const PushAddress = z.object({ provider: z.string().min(1).max(64), token: z.string().min(1).max(4096) }).openapi("PushAddress");

const ChatProvider = z.string().min(1).max(64);

/**
 * A chat destination: a webhook URL (Slack/Discord/Teams/Mattermost webhooks, signed webhooks) or a
 * channel id for providers that post with a bot token (`slack-api`: `C0123…`, `telegram`: a chat id
 * or `@channelusername`). Both are stored as one address; a channel id never contains `:` or `/`,
 * so the stored value tells which one it was.
 */
export const ChatAddress = z
  .union([
    z.object({ provider: ChatProvider, webhookUrl: z.url({ protocol: /^https?$/ }).max(2048) }),
    z.object({
      provider: ChatProvider,
      channelId: z
        .string()
        .min(1)
        .max(256)
        .regex(/^[^\s:/]+$/, "A channel id such as C0123ABCD, -1001234567890 or @channel."),
    }),
  ])
  .openapi("ChatAddress");
export type ChatAddress = z.infer<typeof ChatAddress>;

/** The stored form of a chat address, and back. */
export const chatAddressValue = (address: ChatAddress) => ("webhookUrl" in address ? address.webhookUrl : address.channelId);
export const chatAddressFrom = (provider: string, value: string): ChatAddress =>
  /^https?:\/\//i.test(value) ? { provider, webhookUrl: value } : { provider, channelId: value };

export const SubscriberChannels = z
  .object({
    push: z.array(PushAddress).max(50).nullable().optional(),
    chat: z.array(ChatAddress).max(50).nullable().optional(),
  })
  .openapi("SubscriberChannels", {
    description: "A list given for a channel replaces that channel's addresses; `null` clears them; omitted keeps them.",
  });

/** A name may end up in an email header (`To: First Last <…>`, a subject): no line breaks. */
const HeaderSafe = z
  .string()
  .max(256)
  .refine((value) => !hasLineBreak(value), LINE_BREAK_MESSAGE);

/** What `/sub`, `/sub/bulk` and inline trigger recipients accept. Omitted fields keep their value, `null` clears. */
export const SubscriberInput = z
  .object({
    subscriberId: z.string().trim().min(1).max(256),
    email: z
      .email()
      .max(MAX_ADDRESS)
      .refine((value) => addressLengthProblem(value) === null, `The part before @ takes at most ${MAX_LOCAL_PART} characters (RFC 5321).`)
      .nullable()
      .optional(),
    phone: E164.nullable().optional(),
    firstName: HeaderSafe.nullable().optional(),
    lastName: HeaderSafe.nullable().optional(),
    avatar: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional(),
    locale: z.string().max(35).refine(isLocale, "Use a BCP 47 language tag, e.g. de-CH.").nullable().optional(),
    timezone: z.string().max(64).refine(isTimeZone, "Use an IANA time zone, e.g. Europe/Zurich.").nullable().optional(),
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    channels: SubscriberChannels.optional(),
  })
  .strict()
  .openapi("SubscriberInput");
export type SubscriberInput = z.infer<typeof SubscriberInput>;

export const TopicRecipient = z
  .object({ topic: z.string().min(1).max(128), exclude: z.array(z.string().min(1)).max(1000).optional() })
  .strict()
  .openapi("TopicRecipient");

export const Recipient = z
  .union([z.string().trim().min(1).max(256), SubscriberInput, TopicRecipient])
  .openapi("Recipient", { description: "A subscriberId, a subscriber (upserted inline) or a topic." });
export type Recipient = z.infer<typeof Recipient>;

/**
 * Stored in a trigger's recipients by `POST /v1/trigger/broadcast`, never accepted in `to`: the
 * fan-out reads it as "every subscriber of the environment", paged like a topic's members.
 */
export const BROADCAST_RECIPIENT = { type: "Broadcast" } as const;
export type BroadcastRecipient = typeof BROADCAST_RECIPIENT;

export const isBroadcastRecipient = (value: unknown): value is BroadcastRecipient =>
  typeof value === "object" && value !== null && (value as { type?: unknown }).type === "Broadcast";
