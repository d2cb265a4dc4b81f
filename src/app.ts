import { Scalar } from "@scalar/hono-api-reference";
import { HTTPException } from "hono/http-exception";
import { preferencesRoutes } from "./features/subscribers/preferences-routes";
import { messagesRoutes } from "./features/messages/routes";
import { subscribersRoutes } from "./features/subscribers/routes";
import { topicsRoutes } from "./features/topics/routes";
import { trackingRoutes } from "./features/tracking/routes";
import { webhooksRoutes } from "./features/webhooks/routes";
import { triggersRoutes } from "./features/triggers/routes";
import { variablesRoutes } from "./features/variables/routes";
import { integrationsRoutes } from "./features/integrations/routes";
import { previewRoutes } from "./features/workflows/preview-routes";
import { workflowsRoutes } from "./features/workflows/routes";
import { ApiError, internalError, problemResponse } from "./lib/errors";
import { apiKeyAuth } from "./lib/middleware/auth";
import { jsonBody } from "./lib/middleware/json-body";
import { requestId } from "./lib/middleware/request-id";
import { createRouter } from "./lib/openapi";

/**
 * The API proper needs a key; health, the API description, the dashboard, tracking links and
 * provider webhooks (verified by their own signatures) do not.
 */
const KEYED_PATHS = /^\/(v1\/(?!webhooks\/)|sub(\/|$))/;

export function createApp() {
  const app = createRouter();

  app.use("*", requestId);
  app.use("*", async (c, next) => (KEYED_PATHS.test(c.req.path) ? apiKeyAuth(c, next) : next()));
  app.use("*", jsonBody);

  app.get("/health", (c) => c.json({ status: "ok" }));

  app.route("/", triggersRoutes);
  app.route("/", messagesRoutes);
  app.route("/", webhooksRoutes);
  app.route("/", trackingRoutes);
  app.route("/", subscribersRoutes);
  app.route("/", workflowsRoutes);
  app.route("/", previewRoutes);
  app.route("/", variablesRoutes);
  app.route("/", preferencesRoutes);
  app.route("/", integrationsRoutes);
  app.route("/", topicsRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "`ApiKey <key>` (or `Bearer <key>`). The key selects the environment.",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Clarion API",
      version: "0.4.0",
      description: "Notification infrastructure on Cloudflare Workers. Errors are RFC 9457 problem documents.",
    },
  });
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Clarion API reference" }));

  app.notFound((c) => problemResponse(new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`), c.get("requestId")));
  app.onError((error, c) => {
    const id = c.get("requestId");
    if (error instanceof HTTPException && error.status < 500) return problemResponse(ApiError.from(error), id);
    console.error(JSON.stringify({ level: "error", requestId: id, message: error.message, stack: error.stack }));
    return problemResponse(internalError(), id);
  });

  return app;
}

export type App = ReturnType<typeof createApp>;
