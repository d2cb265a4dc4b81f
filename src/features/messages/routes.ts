import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { createRouter, problems, security } from "../../lib/openapi";
import { messagesRepository } from "./repository";
import { MessageList, MessageQuery, MessageWithEvents, SandboxMessage, TriggerStatusView } from "./schemas";

export const messagesRoutes = createRouter();

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const repo = (c: { env: { DB: D1Database }; get: (k: "environmentId") => string }) =>
  messagesRepository(createDb(c.env.DB), c.get("environmentId"));

messagesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/messages",
    tags: ["Messages"],
    summary: "List messages, newest first",
    security,
    request: { query: MessageQuery },
    responses: { 200: { description: "A page of messages", content: json(MessageList) }, ...problems(401, 422) },
  }),
  async (c) => c.json(await repo(c).list(c.req.valid("query")), 200),
);

messagesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/messages/{id}",
    tags: ["Messages"],
    summary: "Get a message with its tracking timeline",
    security,
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: { description: "The message and its events", content: json(MessageWithEvents) }, ...problems(401, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const message = await repo(c).find(id);
    if (!message) throw new ApiError("message_not_found", `No message ${id} in this environment.`);
    return c.json(message, 200);
  },
);

messagesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/trigger/{transactionId}",
    tags: ["Triggers"],
    summary: "A trigger's status and its messages counted by status",
    description: "The record is written by the Queue consumer within seconds of the trigger's acceptance.",
    security,
    request: { params: z.object({ transactionId: z.string() }) },
    responses: { 200: { description: "The trigger", content: json(TriggerStatusView) }, ...problems(401, 404) },
  }),
  async (c) => {
    const { transactionId } = c.req.valid("param");
    const status = await repo(c).triggerStatus(transactionId);
    if (!status) throw new ApiError("transaction_not_found", `No recorded trigger with transactionId "${transactionId}" in this environment.`);
    return c.json(status, 200);
  },
);

messagesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/sandbox/messages",
    tags: ["Messages"],
    summary: "What the local sandbox providers captured, newest first",
    security,
    request: { query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50), messageId: z.string().optional() }) },
    responses: { 200: { description: "Captured sends", content: json(z.object({ data: z.array(SandboxMessage) })) }, ...problems(401) },
  }),
  async (c) => {
    const { limit, messageId } = c.req.valid("query");
    return c.json({ data: await repo(c).sandbox(limit, messageId) }, 200);
  },
);
