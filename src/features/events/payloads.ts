import { z } from "@hono/zod-openapi";
import type { EventType } from "../../contract/event-types";
import { MESSAGE_STATUSES, TRIGGER_STATUSES } from "../../contract/statuses";
import { PREFERENCE_CHANGE_REASONS } from "../../contract/subscriber-activity";
import { SUPPRESSION_REASONS } from "../../contract/suppressions";

// The `data` of each event type: what the emitters write (db/queries/fact-events.ts and the
// features' eventRow calls), what the OpenAPI document's `webhooks` section shows, and what the
// tests parse every received event with. Ids and states only: never content or secrets.

const ids = (description: string) => z.string().openapi({ description });

export const MessageEventData = z
  .object({
    messageId: ids("`msg_…`"),
    transactionId: ids("The trigger's transaction id."),
    workflow: ids("The workflow's key."),
    subscriberId: z.string(),
    stepId: z.string(),
    channel: z.string().openapi({ example: "email" }),
    provider: z.string().nullable().openapi({ description: "The provider that took the message; null before any did." }),
    tenant: z.string().nullable().optional().openapi({ description: "The tenant its trigger named; null or absent: none." }),
    status: z
      .enum(MESSAGE_STATUSES)
      .openapi({ description: "The status this event reports (`undeliverable` for a refused address on `message.failed`)." }),
    reason: z.string().nullable().openapi({
      description:
        "Why a message was skipped (`preference`, `suppressed`, `condition`, `missing_address`, …) or the error code of a failure; null otherwise.",
    }),
  })
  .strict()
  .openapi("MessageEventData");

export const TriggerEventData = z
  .object({
    transactionId: z.string(),
    workflow: z.string(),
    status: z.enum(TRIGGER_STATUSES),
    counts: z.record(z.string(), z.number().int()).openapi({ description: "The trigger's messages by status when the event was written." }),
    cancelledMessages: z
      .number()
      .int()
      .nullable()
      .optional()
      .openapi({ description: "`trigger.cancelled`: messages the cancellation stopped." }),
  })
  .strict()
  .openapi("TriggerEventData");

export const SubscriberEventData = z
  .object({
    subscriberId: z.string(),
    reason: z.enum(PREFERENCE_CHANGE_REASONS).optional().openapi({
      description:
        "`subscriber.updated` for a preference change: who made it; `inbox` on `subscriber.created` / `subscriber.updated` also for a profile written by an Inbox session.",
    }),
    preferences: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "`subscriber.updated` for a preference change: only the flags that changed." }),
  })
  .strict()
  .openapi("SubscriberEventData");

export const SuppressionEventData = z
  .object({
    address: z.string().nullable().openapi({
      description: "The lower-cased email or E.164 phone put on the list; null for push tokens and chat webhook URLs (credentials).",
    }),
    channel: z.string(),
    reason: z.enum(SUPPRESSION_REASONS),
    provider: z.string().nullable(),
    messageId: z.string().nullable(),
  })
  .strict()
  .openapi("SuppressionEventData");

export const EndpointDisabledData = z
  .object({ endpointId: z.string(), url: z.string(), reason: z.enum(["gone", "failing"]) })
  .strict()
  .openapi("EndpointDisabledData");

export const WebhookTestData = z.object({ endpointId: z.string() }).strict().openapi("WebhookTestData");

/** Each type's `data` schema: exhaustive, so a new type cannot ship without one. */
export const EVENT_DATA = {
  "message.sent": MessageEventData,
  "message.delivered": MessageEventData,
  "message.failed": MessageEventData,
  "message.bounced": MessageEventData,
  "message.opened": MessageEventData,
  "message.clicked": MessageEventData,
  "message.skipped": MessageEventData,
  "message.seen": MessageEventData,
  "message.read": MessageEventData,
  "message.archived": MessageEventData,
  "trigger.completed": TriggerEventData,
  "trigger.cancelled": TriggerEventData,
  "subscriber.created": SubscriberEventData,
  "subscriber.updated": SubscriberEventData,
  "subscriber.deleted": SubscriberEventData,
  "suppression.added": SuppressionEventData,
  "endpoint.disabled": EndpointDisabledData,
  "webhook.test": WebhookTestData,
} satisfies Record<EventType, z.ZodType>;
