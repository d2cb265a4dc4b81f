import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { redeliver } from "./endpoints/replay";
import { takesEvent } from "./endpoints/repository";
import { ReplayResult } from "./endpoints/schemas";
import { EventIdParam, EventList, EventQuery } from "./schemas";

export const eventsRoutes = createRouter();

const tags = ["Event webhooks"];

eventsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/events",
    tags,
    summary: "List events",
    description:
      "The environment's event log, newest first, kept for the retention period (`RETENTION_DAYS`, default 30): what was sent, or would have been, to webhook endpoints.",
    security,
    request: { query: EventQuery },
    responses: { 200: { description: "A page of events", content: json(EventList) } },
  }),
  async (c) => c.json(await c.var.data.events.list(c.req.valid("query")), 200),
);

eventsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/events/{eventId}/resend",
    tags,
    summary: "Resend an event",
    description:
      "Queues the event again, with its original id, to every enabled endpoint that takes its type; a retry of it still pending at one of them is cancelled.",
    security,
    request: { params: EventIdParam },
    responses: { 202: { description: "Queued", content: json(ReplayResult) } },
    errors: ["event_not_found"],
  }),
  async (c) => {
    const { eventId } = c.req.valid("param");
    const event = await c.var.data.events.find(eventId);
    if (!event) throw notFound("event_not_found", `event "${eventId}"`);
    const targets = (await c.var.data.webhookEndpoints.enabled()).filter((endpoint) => takesEvent(endpoint, event.type));
    const pairs = targets.map((endpoint) => ({ eventId, endpointId: endpoint.id }));
    // As a replay does: a retry still pending for one of them would deliver the event a second time.
    const queued = await redeliver(c.var.data, c.env, pairs);
    return c.json({ queued }, 202);
  },
);
