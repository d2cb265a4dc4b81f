import type { Context } from "hono";
import type { AppEnv } from "./env";
import { preferencesRoutes } from "./features/subscribers/preferences-routes";
import { activityRoutes } from "./features/subscribers/activity-routes";
import { preferenceLinksRoutes } from "./features/preference-links/routes";
import { unsubscribeRoutes } from "./features/preference-links/unsubscribe-routes";
import { preferencePageRoutes } from "./features/preference-links/page-routes";
import { messagesRoutes } from "./features/messages/routes";
import { analyticsRoutes } from "./features/analytics/routes";
import { feedRoutes } from "./features/in-app/feed-routes";
import { settingsRoutes } from "./features/in-app/settings-routes";
import { subscribersRoutes } from "./features/subscribers/routes";
import { suppressionsRoutes } from "./features/suppressions/routes";
import { topicsRoutes } from "./features/topics/routes";
import { trackingRoutes } from "./features/tracking/routes";
import { providerCallbackRoutes } from "./features/provider-callbacks/routes";
import { webhookEndpointsRoutes } from "./features/events/endpoints/routes";
import { eventsRoutes } from "./features/events/routes";
import { registerEventWebhooks } from "./features/events/webhooks-doc";
import { triggersRoutes } from "./features/triggers/routes";
import { variablesRoutes } from "./features/variables/routes";
import { tenantsRoutes } from "./features/tenants/routes";
import { integrationsRoutes } from "./features/integrations/routes";
import { previewRoutes } from "./features/workflows/preview-routes";
import { workflowsRoutes } from "./features/workflows/routes";
import { workflowVersionsRoutes } from "./features/workflows/versions/routes";
import { layoutsRoutes } from "./features/layouts/routes";
import { partialsRoutes } from "./features/partials/routes";
import { bundleRoutes } from "./features/bundle/routes";
import { brandRoutes } from "./features/brand/routes";
import { translationsRoutes } from "./features/translations/routes";
import { testSendRoutes } from "./features/workflows/test-send-routes";
import { novuApp } from "./novu/app";
import { ApiError, apiErrorOf, problemResponse } from "./lib/errors";
import { addRequestExamples } from "./features/docs/examples";
import { dashboardRoutes } from "./features/dashboard/routes";
import { dashboardSessionRoutes } from "./features/environments/dashboard-session-routes";
import { docsRoutes } from "./features/docs/routes";
import { adminRoutes } from "./features/environments/admin-routes";
import { adminAuditRoutes, auditRoutes } from "./features/audit/routes";
import { promotionsRoutes } from "./features/promotions/routes";
import { mcpRoutes } from "./features/mcp/server";
import { proposalsRoutes } from "./features/proposals/routes";
import { adminAuth, apiKeyAuth } from "./features/environments/auth";
import { adminScope, environmentScope, idempotency } from "./lib/middleware/idempotency";
import { BULK_BODY_LIMIT, jsonBody } from "./lib/middleware/json-body";
import { dashboardCors } from "./lib/middleware/cors";
import { requestIds } from "./lib/middleware/request-id";
import { createRouter, IDEMPOTENCY_COMPONENTS } from "./lib/openapi";
import { API_TAGS } from "./features/docs/tags";
import { metricsRoutes } from "./features/metrics/routes";

/** The prefixes of the API proper: every route under them needs a key and takes JSON bodies. */
const KEYED_PREFIXES = ["/v1/*", "/sub/*"];

/** Problems carry the request id; a raw Response would drop the header the middleware set. */
const answer = (c: Context<AppEnv>, error: ApiError) => {
  const id = c.get("requestId");
  return problemResponse(error, id, { "x-request-id": id });
};

const noRoute = (c: Context<AppEnv>) => new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`);

/** Health, provider webhooks (verified by their own signatures) and tracking links need no key. */
function publicRoutes() {
  const routes = createRouter();
  routes.get("/health", (c) => c.json({ status: "ok" }));
  // Its own bearer token (METRICS_TOKEN), not a key: Prometheus scrapes the whole deployment.
  routes.route("/", metricsRoutes);
  routes.route("/", providerCallbackRoutes);
  // All of /v1/webhooks/ is public: a path no webhook route matched is a 404 here, never a 401.
  routes.all("/v1/webhooks/*", (c) => {
    throw noRoute(c);
  });
  routes.route("/", trackingRoutes);
  // The token in the path is the capability: the hosted unsubscribe and preference pages.
  routes.route("/", unsubscribeRoutes);
  routes.route("/", preferencePageRoutes);
  return routes;
}

/**
 * Environments and keys, for the operator: the admin credential only. Mounted before the API
 * proper so its `/v1/*` key check never sees these paths.
 */
function adminApi() {
  const routes = createRouter();
  routes.use("/v1/admin/*", adminAuth);
  routes.use("/v1/admin/*", jsonBody());
  routes.on("POST", "/v1/admin/*", idempotency(adminScope));
  routes.route("/", adminRoutes);
  routes.route("/", adminAuditRoutes);
  routes.route("/", promotionsRoutes);
  routes.all("/v1/admin/*", (c) => {
    throw noRoute(c);
  });
  return routes;
}

/** The dashboard's sign-in, before the API proper: signing in needs no key yet. */
function sessionApi() {
  const routes = createRouter();
  routes.use("/v1/dashboard/session", jsonBody());
  routes.route("/", dashboardSessionRoutes);
  return routes;
}

/**
 * The API proper. Mounted after the public routes: a public route under a keyed prefix (the
 * webhooks under `/v1/webhooks/`) answers before this router's middleware is reached.
 */
function keyedRoutes() {
  const routes = createRouter();
  routes.on("ALL", KEYED_PREFIXES, apiKeyAuth);
  routes.use("/v1/trigger/bulk", jsonBody({ maxSize: BULK_BODY_LIMIT }));
  routes.use("/sub/bulk", jsonBody({ maxSize: BULK_BODY_LIMIT }));
  routes.on("ALL", KEYED_PREFIXES, jsonBody());
  // After the key (its environment is the scope) and the body (part of the fingerprint).
  routes.on("POST", KEYED_PREFIXES, idempotency(environmentScope));

  routes.route("/", triggersRoutes);
  routes.route("/", messagesRoutes);
  routes.route("/", analyticsRoutes);
  routes.route("/", subscribersRoutes);
  routes.route("/", tenantsRoutes);
  routes.route("/", workflowsRoutes);
  routes.route("/", previewRoutes);
  routes.route("/", workflowVersionsRoutes);
  routes.route("/", layoutsRoutes);
  routes.route("/", partialsRoutes);
  routes.route("/", bundleRoutes);
  routes.route("/", testSendRoutes);
  routes.route("/", variablesRoutes);
  routes.route("/", preferencesRoutes);
  routes.route("/", activityRoutes);
  routes.route("/", preferenceLinksRoutes);
  routes.route("/", brandRoutes);
  routes.route("/", translationsRoutes);
  routes.route("/", integrationsRoutes);
  routes.route("/", topicsRoutes);
  routes.route("/", suppressionsRoutes);
  routes.route("/", feedRoutes);
  routes.route("/", settingsRoutes);
  routes.route("/", webhookEndpointsRoutes);
  routes.route("/", eventsRoutes);
  routes.route("/", auditRoutes);
  routes.route("/", proposalsRoutes);
  return routes;
}

export function createApp() {
  const app = createRouter();

  app.use("*", requestIds());
  // Before every route, so a preflight is answered here and never reaches a key check.
  app.on("ALL", KEYED_PREFIXES, dashboardCors);

  app.route("/", publicRoutes());
  app.route("/", adminApi());
  app.route("/", sessionApi());
  app.route("/", keyedRoutes());
  // The MCP server: its own auth (API keys and MCP keys), its own protocol errors, not in /openapi.json.
  app.route("/", mcpRoutes);
  // Novu's API on its own prefix, in Novu's shapes and errors; kept out of /openapi.json (it has /novu/openapi.json).
  app.route("/novu", novuApp);

  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "`ApiKey <key>` (or `Bearer <key>`). The key selects the environment. The admin credential acts in an environment when the request names it with `Clarion-Environment: <slug>` (404 `environment_not_found` if there is none; counted against that environment's rate limit); an environment key may send only its own slug there (else 403). The dashboard, served by the Worker, sends its session cookie with `X-Clarion-Dashboard: 1` instead (`/v1/dashboard/session`).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminKey", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "`ApiKey clarion_admin_...`: the admin credential printed by `npm start` and the first `npm run deploy`. Environment keys get 403 here.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "MetricsToken", {
    type: "http",
    scheme: "bearer",
    description: "`Bearer <METRICS_TOKEN>`: the secret that turns `GET /metrics` on (docs/guides/observability.md).",
  });
  registerEventWebhooks(app.openAPIRegistry);
  app.openAPIRegistry.registerComponent("parameters", "IdempotencyKey", IDEMPOTENCY_COMPONENTS.parameter);
  app.openAPIRegistry.registerComponent("headers", "IdempotencyReplay", IDEMPOTENCY_COMPONENTS.header);
  const documentConfig = {
    openapi: "3.1.0",
    info: {
      title: "Clarion API",
      version: "0.12.0",
      description:
        "Notification infrastructure on Cloudflare Workers. Errors are RFC 9457 problem documents; each operation lists the `code`s it can answer with in its problem responses and in `x-error-codes`.",
    },
    tags: [...API_TAGS],
  };
  // Built once per isolate, on first request: the routes do not change at run time.
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  app.get("/openapi.json", (c) => {
    if (!document) {
      document = app.getOpenAPI31Document(documentConfig);
      addRequestExamples(document);
    }
    return c.json(document);
  });
  app.route("/", docsRoutes);
  app.route("/", dashboardRoutes);

  app.notFound((c) => answer(c, noRoute(c)));
  app.onError((error, c) => answer(c, apiErrorOf(error, c.get("requestId"))));

  return app;
}

export type App = ReturnType<typeof createApp>;
