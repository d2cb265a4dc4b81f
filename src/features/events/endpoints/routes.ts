import type { Context } from "hono";
import type { AppEnv } from "../../../env";
import { checkDestination, webhookDestinationOptions } from "../../../lib/destinations";
import { ApiError, notFound } from "../../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../../lib/openapi";
import { auditContextOf } from "../../audit/record";
import { unscopedDb } from "../../../db/unscoped";
import { deliverEvent } from "./deliver";
import { redeliver } from "./replay";
import { REPLAY_LIMIT } from "./replay-repository";
import { limitEndpointAction } from "./rate-limit";
import { endpointsMax } from "./limits";
import { toWebhookEndpoint } from "./repository";
import {
  AttemptQuery,
  EndpointIdParam,
  ReplayInput,
  ReplayResult,
  RotateSecretInput,
  WebhookAttempt,
  WebhookAttemptList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointInput,
  WebhookEndpointList,
  WebhookEndpointQuery,
  WebhookEndpointSecret,
  WebhookEndpointUpdate,
} from "./schemas";

export const webhookEndpointsRoutes = createRouter();

const tags = ["Event webhooks"];
const missing = (id: string) => notFound("webhook_endpoint_not_found", `webhook endpoint "${id}"`);

/** The same policy as provider URLs, ports 443 and 8443 only: refused on save here, and checked again on every send. */
function assertAllowed(c: Context<AppEnv>, url: string | undefined) {
  if (url === undefined) return;
  const verdict = checkDestination(url, webhookDestinationOptions(c.env));
  if (!verdict.ok)
    throw new ApiError("destination_not_allowed", "The endpoint URL is not an allowed destination.", [
      { path: "url", message: `Not an allowed destination: ${verdict.reason}.` },
    ]);
}

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhook-endpoints",
    tags,
    summary: "Create a webhook endpoint",
    description:
      "Events of this environment are POSTed to `url`, signed per Standard Webhooks with the `secret` in the answer (also at `GET /v1/webhook-endpoints/{id}/secret`). An environment has at most `WEBHOOK_ENDPOINTS_MAX` endpoints (default 20).",
    security,
    request: { body: { content: json(WebhookEndpointInput), required: true } },
    responses: { 201: { description: "Created, with its signing secret", content: json(WebhookEndpointCreated) } },
    errors: ["destination_not_allowed", "limit_reached"],
    secrets: ["secret"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    assertAllowed(c, input.url);
    // Each endpoint is one more signed POST per event to a host of the caller's choosing.
    const max = endpointsMax(c.env);
    if ((await c.var.data.webhookEndpoints.count()) >= max)
      throw new ApiError(
        "limit_reached",
        `This environment has ${max} webhook endpoints, as many as this deployment allows (WEBHOOK_ENDPOINTS_MAX): delete one, or have one endpoint take more event types.`,
      );
    return c.json(await c.var.data.webhookEndpoints.create(input, auditContextOf(c)), 201);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/webhook-endpoints",
    tags,
    summary: "List webhook endpoints",
    description: "Newest first.",
    security,
    request: { query: WebhookEndpointQuery },
    responses: { 200: { description: "A page of endpoints", content: json(WebhookEndpointList) } },
  }),
  async (c) => c.json(await c.var.data.webhookEndpoints.list(c.req.valid("query")), 200),
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/webhook-endpoints/{id}",
    tags,
    summary: "Get a webhook endpoint",
    security,
    request: { params: EndpointIdParam },
    responses: { 200: { description: "The endpoint", content: json(WebhookEndpoint) } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const row = await c.var.data.webhookEndpoints.find(id);
    if (!row) throw missing(id);
    return c.json(toWebhookEndpoint(row), 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/webhook-endpoints/{id}",
    tags,
    summary: "Update a webhook endpoint",
    description: "Turning an endpoint on again (`enabled: true`) clears the reason Clarion turned it off and restarts its failure clock.",
    security,
    request: { params: EndpointIdParam, body: { content: json(WebhookEndpointUpdate), required: true } },
    responses: { 200: { description: "The endpoint as updated", content: json(WebhookEndpoint) } },
    errors: ["webhook_endpoint_not_found", "destination_not_allowed"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    assertAllowed(c, input.url);
    const endpoint = await c.var.data.webhookEndpoints.update(id, input, auditContextOf(c));
    if (!endpoint) throw missing(id);
    return c.json(endpoint, 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/webhook-endpoints/{id}",
    tags,
    summary: "Delete a webhook endpoint",
    description: "Deliveries still queued for it are dropped.",
    security,
    request: { params: EndpointIdParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.var.data.webhookEndpoints.remove(id, auditContextOf(c)))) throw missing(id);
    return c.body(null, 204);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/webhook-endpoints/{id}/secret",
    tags,
    summary: "Reveal an endpoint's signing secret",
    description: "The current secret and, during a rotation's overlap, the previous one.",
    security,
    request: { params: EndpointIdParam },
    responses: { 200: { description: "The secrets", content: json(WebhookEndpointSecret) } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const secret = await c.var.data.webhookEndpoints.secret(id);
    if (!secret) throw missing(id);
    return c.json(secret, 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhook-endpoints/{id}/rotate-secret",
    tags,
    summary: "Rotate an endpoint's signing secret",
    description:
      "A new secret signs from now on. For `overlapHours` (default 24) the old one signs too: every delivery carries both `v1,` signatures, so a receiver can switch secrets without losing an event.",
    security,
    request: { params: EndpointIdParam, body: { content: json(RotateSecretInput), required: false } },
    responses: { 200: { description: "The new secret and the old one while it still signs", content: json(WebhookEndpointSecret) } },
    errors: ["webhook_endpoint_not_found"],
    secrets: ["secret", "previousSecret"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    // The body is optional: a bare POST is not validated, so its default is applied here.
    const { overlapHours } = RotateSecretInput.parse(c.req.valid("json") ?? {});
    const secret = await c.var.data.webhookEndpoints.rotateSecret(id, overlapHours, auditContextOf(c));
    if (!secret) throw missing(id);
    return c.json(secret, 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhook-endpoints/{id}/test",
    tags,
    summary: "Send a test event",
    description:
      "Sends a `webhook.test` event to this endpoint now (turned off or not) and answers with the attempt: status, the endpoint's response status, latency, error. A failed test is not retried; it counts toward nothing. Tests and replays of one endpoint share a rate limit (`webhookActions`, default 20 a minute): past it, `429` with `Retry-After`.",
    security,
    request: { params: EndpointIdParam },
    responses: { 200: { description: "The attempt", content: json(WebhookAttempt) } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await c.var.data.webhookEndpoints.find(id);
    if (!endpoint) throw missing(id);
    const log = c.var.data.events;
    const environmentSlug = await log.slug();
    await limitEndpointAction(c, environmentSlug, id);
    const event = await log.recordDirect("webhook.test", { endpointId: id });
    const { attempt } = await deliverEvent(c.env, unscopedDb(c.env), {
      environmentSlug,
      endpoint,
      event,
      attempt: 1,
      test: true,
    });
    return c.json(attempt, 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/webhook-endpoints/{id}/attempts",
    tags,
    summary: "List an endpoint's delivery attempts",
    description: "Newest first: each try of each event, with the endpoint's response status, latency, error and when the next try is due.",
    security,
    request: { params: EndpointIdParam, query: AttemptQuery },
    responses: { 200: { description: "A page of attempts", content: json(WebhookAttemptList) } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if (!(await c.var.data.webhookEndpoints.find(id))) throw missing(id);
    return c.json(await c.var.data.webhookAttempts.list(id, c.req.valid("query")), 200);
  },
);

webhookEndpointsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/webhook-endpoints/{id}/replay",
    tags,
    summary: "Replay events to an endpoint",
    description: `Queues again, with their original ids (the same \`webhook-id\`), the events of \`since\`..\`until\` that were meant for this endpoint: created since the endpoint was, of a type it takes. By default only those whose last attempt here failed; \`onlyFailed: false\` takes every one. A replayed event's pending retry is cancelled, so it is not delivered twice. At most ${REPLAY_LIMIT} events per call, oldest first. Tests and replays of one endpoint share a rate limit (\`webhookActions\`, default 20 a minute): past it, \`429\` with \`Retry-After\`.`,
    security,
    request: { params: EndpointIdParam, body: { content: json(ReplayInput), required: true } },
    responses: { 202: { description: "Queued", content: json(ReplayResult) } },
    errors: ["webhook_endpoint_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await c.var.data.webhookEndpoints.find(id);
    if (!endpoint) throw missing(id);
    await limitEndpointAction(c, await c.var.data.events.slug(), id);
    const pairs = (await c.var.data.replay.eventsToReplay(endpoint, c.req.valid("json"))).map((eventId) => ({ eventId, endpointId: id }));
    const queued = await redeliver(c.var.data, c.env, pairs);
    return c.json({ queued }, 202);
  },
);
