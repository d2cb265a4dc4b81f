// The bodies of Novu's Inbox protocol as `@novu/js` 3.19 sends and reads them
// (packages/js/src/api/inbox-service.ts and its types).
import { z } from "@hono/zod-openapi";
import { CHANNELS } from "../../engine/steps";
import { NovuSubscriberInput } from "../inputs";
import { InboxSchedule, InboxScheduleInput } from "./schedule";
import { TriggerContext } from "../../features/triggers/schemas";
import { canonicalize } from "../../contract/inbox-context";

/** Novu's context as the Inbox sends it; its hash is over its canonical JSON, which has no floats. */
const SessionContext = TriggerContext.superRefine((context, ctx) => {
  try {
    canonicalize(context);
  } catch {
    ctx.addIssue({ code: "custom", message: "Context data holds only strings, integers, booleans, null, arrays and objects." });
  }
});

/** A browser may name its profile, never its push tokens or chat webhooks. */
const SessionSubscriber = NovuSubscriberInput.omit({ channels: true });

export const InboxSessionRequest = z
  .object({
    applicationIdentifier: z.string().min(1).max(64),
    subscriberHash: z.string().max(128).optional(),
    subscriber: SessionSubscriber.optional(),
    /** Before `subscriber`, clients sent the id alone. */
    subscriberId: z.string().min(1).max(256).optional(),
    defaultSchedule: InboxScheduleInput.optional().openapi({
      description:
        "The delivery schedule a subscriber starts with: stored only when they have none yet (never over one they or your backend set). `isEnabled` left out means on.",
    }),
    context: SessionContext.optional().openapi({
      description:
        "Novu's context (`{ tenant: \"acme\" }` or `{ tenant: { id, data } }`, up to 5 keys): the session sees only the notifications triggered with exactly this context (each key's id); without one, only those triggered with none.",
    }),
    contextHash: z.string().max(128).optional().openapi({
      description:
        "Hex HMAC-SHA256 of the context's canonical JSON (keys sorted, no whitespace) with the environment's `hmacSecret`; required with a `context` where `hmacRequired` is on.",
    }),
  })
  .refine((b) => b.subscriber?.subscriberId || b.subscriberId, { message: "Give `subscriber.subscriberId`.", path: ["subscriber"] })
  .openapi("InboxSessionRequest", {
    example: {
      applicationIdentifier: "5f0c3e9a2b7d41c8a6e0f2d3",
      subscriberHash: "9c1e…",
      subscriber: { subscriberId: "user-42", firstName: "Ada" },
    },
  });
export type InboxSessionRequest = z.infer<typeof InboxSessionRequest>;

export const SEVERITIES = ["high", "medium", "low", "none"] as const;
const Severity = z.enum(SEVERITIES);

export const InboxSession = z
  .object({
    token: z.string().openapi({ description: "Opaque to the client: sent back as `Authorization: Bearer <token>`." }),
    totalUnreadCount: z.number().int(),
    unreadCount: z.object({ total: z.number().int(), severity: z.record(Severity, z.number().int()) }),
    removeNovuBranding: z.boolean(),
    isDevelopmentMode: z.boolean(),
    maxSnoozeDurationHours: z.number().int(),
    applicationIdentifier: z.string(),
  })
  .openapi("InboxSession");

const Tag = z.string().min(1).max(64);
const TagList = z.array(Tag).max(20);
const TagGroup = z.object({ or: TagList }).strict();
/** Novu's tag filter: one OR-group (`["a","b"]` or `{or}`), or an AND of OR-groups (`{and: [{or}, …]}`). */
export const TagsFilter = z.union([TagList, TagGroup, z.object({ and: z.array(TagGroup).max(10) }).strict()]);
export type TagsFilter = z.infer<typeof TagsFilter>;

const Scalar = z.union([z.string().max(256), z.number(), z.boolean(), z.null()]);
const Scalars = z.array(Scalar).min(1).max(50);
const ScalarGroup = z.object({ or: Scalars }).strict();
const DataValue = z.union([Scalar, Scalars, ScalarGroup, z.object({ and: z.array(ScalarGroup).min(1).max(10) }).strict()]);
const DataKey = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Use letters, digits, `_` or `-`.");
/** Keys of the notification's `data`: a value, any of several, or one level deeper with the same rules. */
export const DataFilter = z
  .record(DataKey, z.union([DataValue, z.record(DataKey, DataValue)]))
  .refine((d) => Object.keys(d).length <= 20, "At most 20 keys.");
export type DataFilter = z.infer<typeof DataFilter>;
export type DataValue = z.infer<typeof DataValue>;

/** Snoozes up to 90 days, as Novu Cloud offers by default (the session tells the Inbox). */
export const MAX_SNOOZE_HOURS = 90 * 24;

/** The largest moment a JavaScript Date holds: a later one would be an Invalid Date. */
const MAX_MOMENT = 8_640_000_000_000_000;
const Moment = z.number().int().min(0).max(MAX_MOMENT).openapi({ description: "Milliseconds since the epoch." });

export const InboxFilter = z
  .object({
    tags: TagsFilter.optional(),
    read: z.boolean().optional(),
    archived: z.boolean().optional(),
    snoozed: z.boolean().optional(),
    seen: z.boolean().optional(),
    data: DataFilter.optional(),
    severity: z.union([Severity, z.array(Severity).max(4)]).optional(),
    createdGte: Moment.optional(),
    createdLte: Moment.optional(),
  })
  .strict()
  .openapi("InboxFilter", { description: "Every field left out matches both ways. Clarion's notifications have severity `none`." });
export type InboxFilter = z.infer<typeof InboxFilter>;

export const InboxListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  after: z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/, "Pass the id of the last notification of the previous page.")
    .optional(),
  offset: z.coerce.number().int().min(0).max(10_000).optional(),
  read: z.string().optional(),
  archived: z.string().optional(),
  snoozed: z.string().optional(),
  seen: z.string().optional(),
  data: z.string().max(4_000).optional().openapi({ description: "JSON: an `InboxFilter` `data`." }),
  severity: z.string().optional(),
  "severity[]": z.union([z.string(), z.array(z.string())]).optional(),
  "tags[]": z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: "Any of these tags; `tags[0][]`, `tags[1][]`… for an AND of OR-groups." }),
  createdGte: z.string().optional(),
  createdLte: z.string().optional(),
});

export const InboxCountQuery = z.object({
  filters: z.string().max(20_000).openapi({ description: "JSON: an array of `InboxFilter`, one count each." }),
});

/** What `read`, `archive`, `read-archive` and `delete` of many take; `seen` also takes ids. */
export const InboxBulkBody = z
  .object({
    tags: TagsFilter.optional(),
    data: z.string().max(4_000).optional().openapi({ description: "JSON: an `InboxFilter` `data`." }),
  })
  .openapi("InboxBulk");
export const InboxSeenBody = InboxBulkBody.extend({
  notificationIds: z.array(z.string().min(1).max(64)).max(100).optional(),
}).openapi("InboxSeen");

export const SnoozeBody = z.object({ snoozeUntil: z.iso.datetime({ offset: true }) }).openapi("InboxSnooze");
export const ActionBody = z.object({ actionType: z.enum(["primary", "secondary"]) }).openapi("InboxAction");
export const NotificationIdParam = z.object({ id: z.string().min(1).max(64) });

const Redirect = z.object({ url: z.string(), target: z.string().optional() });
const Action = z.object({ label: z.string(), isCompleted: z.boolean(), redirect: Redirect.optional() });

export const InboxWorkflow = z
  .object({
    id: z.string().openapi({ description: "The workflow's key." }),
    identifier: z.string(),
    name: z.string(),
    critical: z.boolean(),
    tags: z.array(z.string()),
    severity: Severity,
  })
  .openapi("InboxWorkflow");
export type InboxWorkflow = z.infer<typeof InboxWorkflow>;

export const InboxNotification = z
  .object({
    id: z.string(),
    transactionId: z.string(),
    subject: z.string().optional(),
    body: z.string(),
    to: z.object({ id: z.string(), subscriberId: z.string() }),
    isRead: z.boolean(),
    isSeen: z.boolean(),
    isArchived: z.boolean(),
    isSnoozed: z.boolean(),
    snoozedUntil: z.string().nullable(),
    deliveredAt: z.array(z.string()),
    createdAt: z.string(),
    readAt: z.string().nullable(),
    firstSeenAt: z.string().nullable(),
    archivedAt: z.string().nullable(),
    avatar: z.string().optional(),
    primaryAction: Action.optional(),
    secondaryAction: Action.optional(),
    channelType: z.literal("in_app"),
    tags: z.array(z.string()),
    data: z.record(z.string(), z.unknown()).optional(),
    redirect: Redirect.optional(),
    workflow: InboxWorkflow,
    severity: Severity,
  })
  .openapi("InboxNotification");
export type InboxNotification = z.infer<typeof InboxNotification>;

export const InboxNotificationList = z
  .object({ data: z.array(InboxNotification), hasMore: z.boolean(), filter: InboxFilter })
  .openapi("InboxNotificationList");
export const InboxCounts = z.object({ data: z.array(z.object({ count: z.number().int(), filter: InboxFilter })) }).openapi("InboxCounts");

const channelShape = Object.fromEntries(CHANNELS.map((c) => [c, z.boolean().optional()])) as Record<
  (typeof CHANNELS)[number],
  z.ZodOptional<z.ZodBoolean>
>;
export const InboxChannels = z.object(channelShape).openapi("InboxChannels");
export type InboxChannels = z.infer<typeof InboxChannels>;

export const InboxPreference = z
  .object({
    level: z.enum(["global", "template"]),
    enabled: z.boolean(),
    channels: InboxChannels,
    overrides: z.array(z.unknown()),
    workflow: InboxWorkflow.optional(),
    schedule: InboxSchedule.optional(),
  })
  .openapi("InboxPreference");
export type InboxPreference = z.infer<typeof InboxPreference>;

export const InboxPreferencesQuery = z.object({
  "tags[]": z.union([z.string(), z.array(z.string())]).optional(),
  criticality: z.enum(["critical", "nonCritical", "all"]).default("nonCritical"),
  severity: z.string().optional(),
  "severity[]": z.union([z.string(), z.array(z.string())]).optional(),
});

/** Novu's channel flags and its delivery schedule. */
export const InboxPreferenceUpdate = InboxChannels.extend({ schedule: InboxScheduleInput.optional() }).openapi("InboxPreferenceUpdate", {
  example: { email: false, in_app: true },
});
export const InboxBulkPreferences = z
  .object({
    preferences: z
      .array(InboxChannels.extend({ workflowId: z.string().min(1).max(64) }))
      .min(1)
      .max(100),
  })
  .openapi("InboxBulkPreferences");
export const WorkflowIdParam = z.object({ workflowId: z.string().min(1).max(64) });
