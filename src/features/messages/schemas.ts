import { z } from "@hono/zod-openapi";
import { MESSAGE_STATUSES, TRIGGER_STATUSES } from "../../contract/statuses";
import { CHANNELS } from "../../engine/steps";
import { base64ToBinary } from "../../lib/base64";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { TriggerRuns } from "./run-schemas";

export const MessageEvent = z
  .object({ status: z.enum(MESSAGE_STATUSES), at: z.iso.datetime(), detail: z.record(z.string(), z.unknown()).nullable() })
  .openapi("MessageEvent");
export type MessageEvent = z.infer<typeof MessageEvent>;

export const Message = z
  .object({
    id: z.string(),
    transactionId: z.string(),
    subscriberId: z.string(),
    workflow: z.string(),
    workflowVersion: z.number().int().nullable().openapi({
      description: "The workflow version its trigger was accepted with, whose content it was sent from (null before versions were kept).",
    }),
    layoutVersion: z.number().int().nullable().openapi({
      description:
        "The version of the layout its email was wrapped in, pinned when its trigger was accepted (null: no layout applied, not an email, or sent before layouts were kept on messages).",
    }),
    tenant: z.string().nullable().openapi({ description: "The tenant its trigger named (null: none)." }),
    context: z
      .record(z.string(), z.string())
      .nullable()
      .openapi({ description: "The other context keys of its trigger, by key: the id given (null: none)." }),
    stepId: z.string(),
    channel: z.enum(CHANNELS),
    provider: z.string().nullable(),
    integrationId: z.string().nullable().openapi({
      description: "The integration its last attempt went through: a tenant's own before the environment's (null: none reached).",
    }),
    status: z.enum(MESSAGE_STATUSES),
    providerMessageId: z.string().nullable(),
    to: z.string().nullable(),
    subject: z.string().nullable(),
    preview: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    attempts: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Message");
export type Message = z.infer<typeof Message>;

export const MessageWithEvents = Message.extend({
  content: z.record(z.string(), z.unknown()).nullable(),
  events: z.array(MessageEvent),
}).openapi("MessageWithEvents");
export type MessageWithEvents = z.infer<typeof MessageWithEvents>;

/**
 * The last message's creation time and id, so pages stay stable while new messages arrive.
 * Before 0.13 the cursor was base64 of `<time>:<id>`, read by `legacy`.
 */
export const messageCursor = cursorCodec(z.tuple([z.number().int().min(0), z.string().min(1)]), {
  legacy: (cursor) => {
    const [at, id] = base64ToBinary(cursor).split(":");
    return at && id && /^\d+$/.test(at) ? [Number(at), id] : null;
  },
});

export const MessageQuery = z
  .object({
    transactionId: z.string().optional(),
    subscriberId: z.string().optional(),
    workflow: z.string().optional(),
    channel: z.enum(CHANNELS).optional(),
    status: z.enum(MESSAGE_STATUSES).optional(),
    provider: z.string().optional(),
    tenant: z.string().min(1).max(256).optional().openapi({ description: "Only this tenant's messages." }),
    context: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}:.{1,256}$/, "Use key:id, e.g. region:eu.")
      .optional()
      .openapi({ description: "Only messages whose trigger had this context key with this id (`key:id`)." }),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .extend(pageQuery(200, messageCursor).shape);

export const MessageList = pageOf(Message).openapi("MessageList");
export type MessageList = z.infer<typeof MessageList>;

export const WaitingStep = z
  .object({
    stepId: z
      .string()
      .nullable()
      .openapi({ description: "The step that runs when the wait ends (null only for waits parked by an older version)." }),
    subscriberId: z.string(),
    kind: z.enum(["delay", "digest", "quiet_hours", "schedule", "wait", "retry"]).openapi({
      description:
        "What holds it: a delay step, an open digest window, the subscriber's quiet hours, their delivery schedule (until its next window), a wait step (until its event or timeout), or a fetch step's next attempt. Throttles never hold: they skip.",
    }),
    until: z.iso.datetime().openapi({ description: "When the wait ends and the step runs." }),
  })
  .openapi("WaitingStep", {
    example: { stepId: "text", subscriberId: "user-7", kind: "delay", until: "2026-01-05T10:00:00.000Z" },
  });
export type WaitingStep = z.infer<typeof WaitingStep>;

export const TriggerStatusView = z
  .object({
    transactionId: z.string(),
    workflow: z.string(),
    workflowVersion: z.number().int().nullable().openapi({
      description:
        "The workflow version the trigger was accepted with: every step, however late, runs that content (null before versions were kept).",
    }),
    status: z.enum(TRIGGER_STATUSES),
    acceptedAt: z.iso.datetime(),
    payload: z
      .record(z.string(), z.unknown())
      .openapi({ description: "The payload as triggered; secret variables' values read `[secret]`." }),
    actor: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullable()
      .openapi({
        description:
          "Who the trigger was sent on behalf of: a subscriberId, or the inline profile given (only the subscriberId once that subscriber is erased).",
      }),
    overrides: z.record(z.string(), z.unknown()).nullable().openapi({ description: "The per-trigger overrides as given, or null." }),
    tenant: z.string().nullable().openapi({ description: "The tenant it was triggered for (null: none, or recorded before tenants)." }),
    context: z.record(z.string(), z.string()).nullable().openapi({ description: "Its other context keys, by key: the id given." }),
    parentTransactionId: z.string().nullable().openapi({
      description:
        "The trigger whose `trigger_workflow` step started this one (null: triggered from the API, or its ledger record has expired).",
    }),
    messages: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
    waiting: z.array(WaitingStep).openapi({
      description: "Recipients' steps that wait on a delay, a digest or quiet hours, earliest first; at most 100 are listed.",
    }),
    waitingTotal: z.number().int().openapi({ description: "How many recipients' steps wait in all." }),
    runs: TriggerRuns.openapi({
      description:
        "Per recipient, the run so far: the path taken and each step's outcome in run order. Paged by recipient (`?limit=`, `?cursor=`), or one recipient with `?subscriberId=`.",
    }),
  })
  .openapi("TriggerStatus");
export type TriggerStatusView = z.infer<typeof TriggerStatusView>;

export const SandboxMessage = z
  .object({
    id: z.string(),
    messageId: z.string(),
    channel: z.string(),
    provider: z.string(),
    to: z.string(),
    content: z.record(z.string(), z.unknown()),
    createdAt: z.iso.datetime(),
  })
  .openapi("SandboxMessage");
export type SandboxMessage = z.infer<typeof SandboxMessage>;

export const STATS_BUCKETS = { hour: 3_600_000, day: 86_400_000 } as const;
/** The widest range each bucket size answers for: a week of hours, a quarter of days. */
export const STATS_MAX_RANGE = { hour: 7 * 86_400_000, day: 92 * 86_400_000 } as const;

export const MessageStatsQuery = z.object({
  since: z.iso.datetime({ offset: true }).optional().openapi({
    description: "Start of the range (messages created at or after it); defaults to a day before `until` (30 days for `bucket=day`).",
  }),
  until: z.iso.datetime({ offset: true }).optional().openapi({ description: "End of the range; defaults to now." }),
  bucket: z.enum(["hour", "day"]).default("hour").openapi({ description: "UTC hours (range up to 7 days) or UTC days (up to 92)." }),
  groupBy: z.enum(["channel", "provider"]).default("channel"),
  tenant: z.string().min(1).max(256).optional().openapi({ description: "Only this tenant's messages." }),
});

export const MessageStatsRow = z
  .object({
    at: z.iso.datetime().openapi({ description: "Start of the bucket." }),
    group: z.string().nullable().openapi({ description: "The channel or provider; null for messages that reached no provider." }),
    total: z.number().int(),
    sent: z.number().int().openapi({ description: "Handed to the provider (in-app: stored), whatever happened after." }),
    delivered: z.number().int().openapi({ description: "Delivered, or further: opened, clicked, or seen, read or archived in the Inbox." }),
    opened: z.number().int().openapi({ description: "Opened or clicked (email)." }),
    clicked: z.number().int().openapi({ description: "Clicked (email)." }),
    seen: z.number().int().openapi({ description: "Seen or read in the Inbox." }),
    read: z.number().int().openapi({ description: "Read in the Inbox (and counted even if marked unread since)." }),
    archived: z.number().int().openapi({ description: "Archived in the Inbox." }),
    failed: z.number().int().openapi({ description: "Failed, bounced or undeliverable, even if the provider took it first." }),
  })
  .openapi("MessageStatsRow");

export const MessageStats = z
  .object({
    since: z.iso.datetime(),
    until: z.iso.datetime(),
    bucket: z.enum(["hour", "day"]),
    groupBy: z.enum(["channel", "provider"]),
    data: z.array(MessageStatsRow).openapi({
      description:
        "Buckets with messages only, oldest first; messages are counted by when they were created, each under every state it reached (its timeline), not only its current status.",
    }),
  })
  .openapi("MessageStats");
export type MessageStats = z.infer<typeof MessageStats>;
