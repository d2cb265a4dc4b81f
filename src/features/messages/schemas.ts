import { z } from "@hono/zod-openapi";
import { MESSAGE_STATUSES, TRIGGER_STATUSES } from "../../db/schema";
import { CHANNELS } from "../workflows/steps";

export const MessageEvent = z
  .object({ status: z.enum(MESSAGE_STATUSES), at: z.iso.datetime(), detail: z.record(z.string(), z.unknown()).nullable() })
  .openapi("MessageEvent");

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

export const MessageQuery = z.object({
  transactionId: z.string().optional(),
  subscriberId: z.string().optional(),
  workflow: z.string().optional(),
  channel: z.enum(CHANNELS).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  provider: z.string().optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});

export const MessageList = z.object({ data: z.array(Message), nextCursor: z.string().nullable() }).openapi("MessageList");

export const TriggerStatusView = z
  .object({
    transactionId: z.string(),
    workflow: z.string(),
    status: z.enum(TRIGGER_STATUSES),
    acceptedAt: z.iso.datetime(),
    messages: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
  })
  .openapi("TriggerStatus");

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
