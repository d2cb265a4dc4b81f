import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { redactSecrets } from "../../engine/redact";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { parentTransactionIdOf } from "../triggers/parent";
import { waitingSteps } from "../triggers/waiting";
import {
  MessageList,
  MessageQuery,
  MessageStats,
  MessageStatsQuery,
  MessageWithEvents,
  SandboxMessage,
  TriggerStatusView,
} from "./schemas";

export const messagesRoutes = createRouter();

/**
 * Content is stored with secret variables redacted; this also covers messages stored before
 * that, as long as the secret still has the value they were sent with.
 */
async function withoutSecrets<T>(c: Context<AppEnv>, read: Promise<T>): Promise<T> {
  const [value, { secrets }] = await Promise.all([read, c.var.data.templateVariables()]);
  return redactSecrets(value, secrets);
}

messagesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/messages",
    tags: ["Messages"],
    summary: "List messages, newest first",
    security,
    request: { query: MessageQuery },
    responses: { 200: { description: "A page of messages", content: json(MessageList) } },
  }),
  async (c) => c.json(await withoutSecrets(c, c.var.data.messages.list(c.req.valid("query"))), 200),
);

// Registered before /v1/messages/{id}, which would otherwise take "stats" for an id.
messagesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/messages/stats",
    tags: ["Messages"],
    summary: "Messages sent, delivered, opened and failed over time, by channel or provider",
    security,
    request: { query: MessageStatsQuery },
    responses: { 200: { description: "Counts per bucket and group", content: json(MessageStats) } },
  }),
  async (c) => c.json(await c.var.data.messageStats(c.req.valid("query")), 200),
);

messagesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/messages/{id}",
    tags: ["Messages"],
    summary: "Get a message with its tracking timeline",
    security,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: { description: "The message and its events", content: json(MessageWithEvents) } },
    errors: ["message_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const message = await withoutSecrets(c, c.var.data.messages.find(id));
    if (!message) throw new ApiError("message_not_found", `No message ${id} in this environment.`);
    return c.json(message, 200);
  },
);

messagesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/trigger/{transactionId}",
    tags: ["Triggers"],
    summary: "A trigger's status and its messages counted by status",
    description:
      "The record is written by the Queue consumer within seconds of the trigger's acceptance. `waiting` lists the steps held by a delay, a digest or quiet hours, per recipient, with the time each runs.",
    security,
    request: { params: z.object({ transactionId: z.string() }) },
    responses: { 200: { description: "The trigger", content: json(TriggerStatusView) } },
    errors: ["transaction_not_found"],
  }),
  async (c) => {
    const { transactionId } = c.req.valid("param");
    const [status, waiting, parentTransactionId] = await Promise.all([
      withoutSecrets(c, c.var.data.messages.triggerStatus(transactionId)),
      waitingSteps(c.env, c.var.data.environmentId, transactionId),
      parentTransactionIdOf(c.env, c.var.data.environmentId, transactionId),
    ]);
    if (!status)
      throw new ApiError("transaction_not_found", `No recorded trigger with transactionId "${transactionId}" in this environment.`);
    const steps = waiting.steps.map((w) => ({ ...w, until: new Date(w.until).toISOString() }));
    return c.json({ ...status, parentTransactionId, waiting: steps, waitingTotal: waiting.total }, 200);
  },
);

messagesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/sandbox/messages",
    tags: ["Messages"],
    summary: "What the local sandbox providers captured, newest first",
    security,
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50), messageId: z.string().optional() }) },
    responses: { 200: { description: "Captured sends", content: json(z.object({ data: z.array(SandboxMessage) })) } },
  }),
  async (c) => {
    const { limit, messageId } = c.req.valid("query");
    return c.json({ data: await withoutSecrets(c, c.var.data.messages.sandbox(limit, messageId)) }, 200);
  },
);
