import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { RunsQuery } from "./run-schemas";
import { redacted, triggerView } from "./trigger-view";
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
const withoutSecrets = <T>(c: Context<AppEnv>, read: Promise<T>): Promise<T> => redacted(c.var.data, read);

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
    summary: "A trigger's status, its messages counted by status, and each recipient's run",
    description:
      "Found from the trigger's acceptance on: until the Queue consumer starts it (within seconds, or longer while the Queue has a backlog) it is `accepted` with no messages, as its ledger keeps it; the consumer then records it (`processing`, then `completed`). `waiting` lists the steps held by a delay, a digest or quiet hours, per recipient, with the time each runs. `runs` shows, per recipient, the path its run took through the workflow's branches and each step on it in run order: a channel step's message, a control step's outcome (ran, skipped with its reason, failed, waiting until, a wait matched or timed out, a fetch's response status code — never its headers or body), delays and digests waiting or passed, and steps not reached yet as `pending`. `runs` is paged by recipient: `?limit=` (default 20, at most 100) and `?cursor=` (its `nextCursor`), or one recipient with `?subscriberId=`. Control steps' outcomes are kept while the run's home keeps the trigger (until it has been finished for the idempotency window); after that `runs.outcomesKept` is false and `runs` shows what the messages show.",
    security,
    request: { params: z.object({ transactionId: z.string() }), query: RunsQuery },
    responses: { 200: { description: "The trigger", content: json(TriggerStatusView) } },
    errors: ["transaction_not_found"],
  }),
  async (c) => {
    const { transactionId } = c.req.valid("param");
    const view = await triggerView(c.env, c.var.data, transactionId, c.req.valid("query"));
    if (!view)
      throw new ApiError("transaction_not_found", `No recorded trigger with transactionId "${transactionId}" in this environment.`);
    return c.json(view, 200);
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
