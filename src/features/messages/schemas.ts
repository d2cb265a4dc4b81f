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

export const TriggerStatusView = z
  .object({
    transactionId: z.string(),
    workflow: z.string(),
    status: z.enum(TRIGGER_STATUSES),
    acceptedAt: z.iso.datetime(),
    messages: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
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
