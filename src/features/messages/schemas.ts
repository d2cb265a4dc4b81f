import { z } from "@hono/zod-openapi";
import { MESSAGE_STATUSES, TRIGGER_STATUSES } from "../../contract/statuses";
import { CHANNELS } from "../../engine/steps";
import { pageOf, pageQuery } from "../../lib/pagination";

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
    stepId: z.string(),
    channel: z.enum(CHANNELS),
    provider: z.string().nullable(),
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

export const MessageQuery = z
  .object({
    transactionId: z.string().optional(),
    subscriberId: z.string().optional(),
    workflow: z.string().optional(),
    channel: z.enum(CHANNELS).optional(),
    status: z.enum(MESSAGE_STATUSES).optional(),
    provider: z.string().optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
  })
  .extend(pageQuery(200).shape);

export const MessageList = pageOf(Message).openapi("MessageList");
export type MessageList = z.infer<typeof MessageList>;

export const WaitingStep = z
  .object({
    stepId: z
      .string()
      .nullable()
      .openapi({ description: "The step that runs when the wait ends (null only for waits parked by an older version)." }),
    subscriberId: z.string(),
    kind: z.enum(["delay", "digest", "quiet_hours"]).openapi({
      description: "What holds it: a delay step, an open digest window, or the subscriber's quiet hours. Throttles never hold: they skip.",
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
    status: z.enum(TRIGGER_STATUSES),
    acceptedAt: z.iso.datetime(),
    messages: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
    waiting: z.array(WaitingStep).openapi({
      description: "Recipients' steps that wait on a delay, a digest or quiet hours, earliest first; at most 100 are listed.",
    }),
    waitingTotal: z.number().int().openapi({ description: "How many recipients' steps wait in all." }),
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
