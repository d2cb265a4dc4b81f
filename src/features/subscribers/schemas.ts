import { z } from "@hono/zod-openapi";
import { ChatAddress, PushAddress } from "../../contract/recipients";
import { BulkItemError } from "../../lib/errors";
import { pageOf, pageQuery } from "../../lib/pagination";
import { subscriberCursor } from "./cursor";
import { SubscriberPreferences } from "./preferences-schemas";

export const Subscriber = z
  .object({
    subscriberId: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    avatar: z.string().nullable(),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    channels: z.object({ push: z.array(PushAddress), chat: z.array(ChatAddress) }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Subscriber");
export type Subscriber = z.infer<typeof Subscriber>;

export const MAX_BULK_SUBSCRIBERS = 500;

export const BulkSubscribersRequest = z
  .object({ subscribers: z.array(z.unknown()).min(1).max(MAX_BULK_SUBSCRIBERS) })
  .openapi("BulkSubscribersRequest", {
    description: `1 to ${MAX_BULK_SUBSCRIBERS} SubscriberInput objects; each is validated and written on its own.`,
  });

export const BulkSubscribersResult = z
  .object({
    created: z.array(z.string()),
    updated: z.array(z.string()),
    failed: z.array(BulkItemError.extend({ subscriberId: z.string().nullable() })),
  })
  .openapi("BulkSubscribersResult");
export type BulkSubscribersResult = z.infer<typeof BulkSubscribersResult>;

const SUBSCRIBER_EXAMPLE = {
  subscriberId: "user-42",
  email: "ada@example.com",
  phone: "+41791234567",
  firstName: "Ada",
  lastName: "Lovelace",
  avatar: null,
  locale: "de-CH",
  timezone: "Europe/Zurich",
  data: { plan: "pro" },
  createdAt: "2026-01-05T09:30:00.000Z",
  updatedAt: "2026-02-11T17:04:12.000Z",
};

/** A subscriber as lists show it: the profile, without channel addresses. */
export const SubscriberSummary = Subscriber.omit({ channels: true }).openapi("SubscriberSummary", { example: SUBSCRIBER_EXAMPLE });
export type SubscriberSummary = z.infer<typeof SubscriberSummary>;

export const SubscriberList = pageOf(SubscriberSummary).openapi("SubscriberList");
export type SubscriberList = z.infer<typeof SubscriberList>;

/** The longest `q`: a search term, not a document. */
export const MAX_QUERY_LENGTH = 100;

export const SubscriberQuery = z
  .object({
    email: z.string().min(1).max(320).optional().openapi({ description: "Exact email address.", example: "ada@example.com" }),
    phone: z.string().min(1).max(16).optional().openapi({ description: "Exact phone number (E.164).", example: "+41791234567" }),
    q: z
      .string()
      .trim()
      .min(1)
      .max(MAX_QUERY_LENGTH)
      .optional()
      .openapi({ description: "Part of the subscriberId, first name, last name or full name; case-insensitive.", example: "lovel" }),
    updatedSince: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: "Only subscribers changed at or after this time (ISO 8601).", example: "2026-02-01T00:00:00Z" }),
  })
  .extend(pageQuery(200, subscriberCursor).shape);
export type SubscriberQuery = z.infer<typeof SubscriberQuery>;

export const SubscriberDetail = Subscriber.extend({
  preferences: SubscriberPreferences,
  topics: z.array(z.string()).openapi({ description: "Keys of the topics the subscriber is a member of." }),
}).openapi("SubscriberDetail", {
  description: "The profile, channel addresses (push tokens and webhook URLs masked), preferences and topic memberships.",
  example: {
    ...SUBSCRIBER_EXAMPLE,
    channels: {
      push: [{ provider: "fcm", token: "fcm-••••" }],
      chat: [{ provider: "slack", webhookUrl: "http••••" }],
    },
    preferences: {
      channels: { email: true, sms: false, push: true, chat: true, in_app: true },
      workflows: {},
      quietHours: null,
      schedule: null,
    },
    topics: ["beta-testers"],
  },
});
export type SubscriberDetail = z.infer<typeof SubscriberDetail>;

export const SubscriberErased = z
  .object({
    subscriberId: z.string(),
    erased: z.object({
      profile: z.literal(true),
      channels: z.number().int().openapi({ description: "Push tokens and chat addresses removed." }),
      preferences: z
        .number()
        .int()
        .openapi({ description: "Stored preference settings removed: channel flags, workflow overrides, quiet hours, delivery schedule." }),
      topics: z.number().int().openapi({ description: "Topic memberships removed." }),
      messagesRedacted: z
        .number()
        .int()
        .openapi({ description: "Messages whose address, subject, preview and content were removed; statuses stay." }),
      suppressions: z.number().int().openapi({ description: "Their addresses taken off the suppression list." }),
      waitingStepsCancelled: z.number().int().openapi({
        description:
          "Parked steps (delay, quiet hours, digest) of triggers in flight, recorded `cancelled` with reason `subscriber_deleted`.",
      }),
    }),
  })
  .openapi("SubscriberErased", {
    example: {
      subscriberId: "user-42",
      erased: { profile: true, channels: 2, preferences: 1, topics: 3, messagesRedacted: 17, suppressions: 0, waitingStepsCancelled: 1 },
    },
  });
export type SubscriberErased = z.infer<typeof SubscriberErased>;
