import { z } from "@hono/zod-openapi";
import { cursorCodec, rawKey } from "../../lib/cursor";
import { pageQuery } from "../../lib/pagination";
import { SESSION_PROFILE_WRITES } from "../../contract/in-app-settings";
import { TenantId } from "../tenants/schemas";

const Redirect = z.object({ url: z.string(), target: z.string().optional() }).openapi("InAppRedirect");
const Action = z.object({ label: z.string(), redirect: Redirect.optional() }).openapi("InAppAction");

export const InAppNotification = z
  .object({
    id: z.string().openapi({ description: "The id of the in_app message this notification is." }),
    subscriberId: z.string(),
    transactionId: z.string(),
    workflow: z.string(),
    stepId: z.string(),
    subject: z.string().nullable(),
    body: z.string(),
    avatar: z.string().nullable(),
    primaryAction: Action.nullable(),
    secondaryAction: Action.nullable(),
    redirect: Redirect.nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    tags: z.array(z.string()),
    seen: z.boolean(),
    read: z.boolean(),
    archived: z.boolean(),
    seenAt: z.iso.datetime().nullable(),
    readAt: z.iso.datetime().nullable(),
    archivedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    tenant: z.string().nullable().openapi({ description: "The tenant of the trigger that sent it; null for none." }),
  })
  .openapi("InAppNotification");
export type InAppNotification = z.infer<typeof InAppNotification>;

export const InAppNotificationList = z
  .object({ data: z.array(InAppNotification), nextCursor: z.string().nullable() })
  .openapi("InAppNotificationList");

const flagQuery = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .optional();

/** Filters shared by the list, the counts and mark-all. */
export const InAppFilter = z
  .object({
    read: z.boolean().optional(),
    seen: z.boolean().optional(),
    archived: z.boolean().optional(),
    tags: z.array(z.string().min(1).max(64)).max(20).optional().openapi({ description: "Notifications with any of these tags." }),
    workflow: z.string().min(1).max(64).optional(),
  })
  .strict()
  .openapi("InAppFilter");

const MessageId = z.string().regex(/^msg_[0-9a-f]{32}$/);
/**
 * The feed by message id, newest first; before 0.13 the cursor was the id itself. The route reads
 * it (a bad cursor is a 400 there), so the query leaves it a plain string.
 */
export const feedCursor = cursorCodec(z.tuple([MessageId]), { legacy: rawKey(MessageId) });

export const InAppFeedQuery = z
  .object({
    read: flagQuery,
    seen: flagQuery,
    archived: flagQuery,
    tags: z.string().max(1_400).optional().openapi({ description: "Comma-separated: notifications with any of these tags." }),
    workflow: z.string().min(1).max(64).optional(),
  })
  .extend({ tenant: TenantId.optional().openapi({ description: "Only the notifications of this tenant's triggers." }) })
  .extend(pageQuery(100).shape);

/** `?tenant=` on a change: only a notification of this tenant changes. */
export const FeedTenantQuery = z.object({
  tenant: TenantId.optional().openapi({ description: "Only the notifications of this tenant's triggers change." }),
});
export const InAppCountsQuery = InAppFeedQuery.omit({ limit: true, cursor: true });

export const InAppCounts = z
  .object({
    total: z.number().int(),
    unread: z.number().int().openapi({ description: "Not read and not archived; exact, never capped." }),
    unseen: z.number().int().openapi({ description: "Not seen and not archived; exact, never capped." }),
    archived: z.number().int(),
  })
  .openapi("InAppCounts");

export const InAppChange = z
  .object({ read: z.boolean().optional(), seen: z.boolean().optional(), archived: z.boolean().optional() })
  .strict()
  .refine((c) => c.read !== undefined || c.seen !== undefined || c.archived !== undefined, "Give at least one of read, seen, archived.")
  .openapi("InAppChange", { example: { read: true } });

export const InAppMarkAll = z
  .object({
    read: z.boolean().optional(),
    seen: z.boolean().optional(),
    archived: z.boolean().optional(),
    filter: InAppFilter.optional(),
  })
  .strict()
  .refine((c) => c.read !== undefined || c.seen !== undefined || c.archived !== undefined, "Give at least one of read, seen, archived.")
  .openapi("InAppMarkAll", { example: { read: true, filter: { tags: ["orders"] } } });

export const InAppMarkAllResult = z.object({ updated: z.number().int(), counts: InAppCounts }).openapi("InAppMarkAllResult");

export const NotificationParams = z.object({ subscriberId: z.string().min(1).max(256), messageId: z.string().min(1).max(64) });
export const FeedParams = NotificationParams.pick({ subscriberId: true });
export type InAppCounts = z.infer<typeof InAppCounts>;

const SessionProfileWrites = z.enum(SESSION_PROFILE_WRITES).openapi({
  description:
    "What an Inbox session (`POST /novu/v1/inbox/session`) may write of the profile the browser sends. `create_only` (the default): a missing subscriber is created with it; an existing subscriber is never changed. `always`: an existing subscriber's fields are updated too, so any signed-in end user can set their own email, phone, data, locale and time zone from the browser (the hash proves only the subscriberId).",
});

export const InAppSettings = z
  .object({
    applicationIdentifier: z.string().openapi({ description: "Public: pass it to the Inbox as `applicationIdentifier`." }),
    hmacSecret: z.string().openapi({
      description: "Keep it on your backend: `subscriberHash` = hex HMAC-SHA256(hmacSecret, subscriberId). Never send it to a browser.",
    }),
    hmacRequired: z.boolean().openapi({ description: "Whether a session without a correct `subscriberHash` is refused (401)." }),
    sessionProfileWrites: SessionProfileWrites,
    apiUrl: z.string().openapi({
      description:
        "Clarion's Novu-compatible prefix: `backendUrl` of `@novu/react`'s `<Inbox/>` (which ignores `apiUrl`), `apiUrl` of `@novu/js`.",
    }),
    socketUrl: z.string().openapi({ description: "The Inbox's `socketUrl` (with `socketOptions: { socketType: 'cloud' }`)." }),
  })
  .openapi("InAppSettings", {
    example: {
      applicationIdentifier: "5f0c3e9a2b7d41c8a6e0f2d3",
      hmacSecret: "9c1e…",
      hmacRequired: true,
      sessionProfileWrites: "create_only",
      apiUrl: "https://clarion.example.com/novu",
      socketUrl: "wss://clarion.example.com/novu/socket",
    },
  });
export type InAppSettings = z.infer<typeof InAppSettings>;

export const InAppSettingsUpdate = z
  .object({ hmacRequired: z.boolean().optional(), sessionProfileWrites: SessionProfileWrites.optional() })
  .strict()
  .refine((u) => u.hmacRequired !== undefined || u.sessionProfileWrites !== undefined, "Give hmacRequired, sessionProfileWrites or both.")
  .openapi("InAppSettingsUpdate", { example: { hmacRequired: true } });
