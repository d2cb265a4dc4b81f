// Novu's REST API as an adapter on its own prefix (`app.route("/novu", novuApp)`): Novu's paths,
// bodies, answers and errors, served by Clarion's own services. Novu's SDKs take the prefix as
// their base URL (`serverURL` / `backendUrl`: `https://<clarion>/novu`). See "Migrating from Novu".
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { environmentScope, idempotency } from "../lib/middleware/idempotency";
import { BULK_BODY_LIMIT, jsonBody } from "../lib/middleware/json-body";
import { createRouter, IDEMPOTENCY_COMPONENTS } from "../lib/openapi";
import { apiKeyAuth } from "../features/environments/auth";
import { novuErrorResponse } from "./errors";
import { novuEventsRoutes } from "./events";
import { inboxRoutes } from "./inbox/app";
import { novuListsV1Routes } from "./lists-v1";
import { novuListsV2Routes } from "./lists-v2";
import { novuSubscribersV1Routes } from "./subscribers-v1";
import { novuSubscribersV2Routes } from "./subscribers-v2";
import { novuTopicMemberRoutes } from "./topic-member";
import { NOVU_TAG } from "./routing";
import { novuSocketRoutes } from "./socket";
import { novuTopicsRoutes } from "./topics";

const KEYED = ["/v1/*", "/v2/*"];

const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Clarion: Novu-compatible API",
    version: "0.12.0",
    description:
      "Novu's REST API as Novu's SDKs call it (`@novu/api`, `@novu/node`), served by Clarion under `/novu`: set `serverURL` (`@novu/api`) or `backendUrl` (`@novu/node`) to `https://<clarion>/novu`. Answers are Novu's (`{ data }`); errors are Novu's error body (`statusCode`, `message`, `error`) with Clarion's `code` and `requestId` beside it. Clarion's own API is described at `/openapi.json`.",
  },
  servers: [{ url: "/novu", description: "This Clarion's Novu-compatible API" }],
  tags: [{ name: NOVU_TAG, description: "Novu's REST API for code written for Novu's SDKs." }],
};

function novuRouter() {
  const routes = createRouter();
  // Every error answered here, the key check's and the validators' included, is Novu's error body.
  // Set before any route: Hono wraps a sub-app's routes with its error handler when they are mounted.
  routes.onError(novuErrorResponse);

  // Public, as /openapi.json is: built once per isolate, on first request.
  let document: ReturnType<typeof routes.getOpenAPI31Document> | undefined;
  routes.get("/openapi.json", (c) => {
    document ??= routes.getOpenAPI31Document(DOCUMENT_CONFIG);
    return c.json(document);
  });

  // The browser's Inbox, with its own session token: mounted before the key check of /v1/*.
  routes.route("/", inboxRoutes);
  routes.on("ALL", KEYED, apiKeyAuth);
  routes.use("/v1/events/trigger/bulk", jsonBody({ maxSize: BULK_BODY_LIMIT }));
  routes.use("/v1/subscribers/bulk", jsonBody({ maxSize: BULK_BODY_LIMIT }));
  routes.on("ALL", KEYED, jsonBody());
  routes.on("POST", KEYED, idempotency(environmentScope));

  routes.route("/", novuEventsRoutes);
  routes.route("/", novuSubscribersV1Routes);
  routes.route("/", novuSubscribersV2Routes);
  routes.route("/", novuTopicsRoutes);
  routes.route("/", novuListsV1Routes);
  routes.route("/", novuListsV2Routes);
  routes.route("/", novuTopicMemberRoutes);
  routes.route("/", novuSocketRoutes);
  routes.all("*", (c) => {
    throw new ApiError("not_found", `No Novu route for ${c.req.method} ${c.req.path}.`);
  });

  routes.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "`ApiKey <key>`, as Novu's SDKs send their secret key. The key selects the environment.",
  });
  routes.openAPIRegistry.registerComponent("securitySchemes", "InboxSession", {
    type: "http",
    scheme: "bearer",
    description:
      "The `token` of `POST /v1/inbox/session`, as `@novu/js` sends it. It names one subscriber of one environment and expires after 24 hours.",
  });
  routes.openAPIRegistry.registerComponent("parameters", "IdempotencyKey", IDEMPOTENCY_COMPONENTS.parameter);
  routes.openAPIRegistry.registerComponent("headers", "IdempotencyReplay", IDEMPOTENCY_COMPONENTS.header);
  return routes;
}

/**
 * A plain Hono app around the Novu router: mounted in the native app, an OpenAPIHono would copy its
 * operations into /openapi.json, which is Clarion's own contract.
 */
export const novuApp = new Hono<AppEnv>().route("/", novuRouter());
