import { z } from "@hono/zod-openapi";
import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import type { Data } from "../data";
import { changePreferences } from "./change-preferences";
import { withDefaults } from "./preferences";
import { SubscriberIdParam, SubscriberPreferences, SubscriberPreferencesUpdate } from "./preferences-schemas";

export const preferencesRoutes = createRouter();

const missing = (id: string) => notFound("subscriber_not_found", `subscriber "${id}"`);

const TenantScope = z.object({
  tenant: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .optional()
    .openapi({ description: "The subscriber's preferences inside this tenant, which beat their own for its messages." }),
});

type Scoped = Awaited<ReturnType<Data["tenantPreferences"]["find"]>>;
const scopedOrThrow = (subscriberId: string, tenant: string, scoped: Scoped) => {
  if (scoped.status === "subscriber_not_found") throw missing(subscriberId);
  if (scoped.status === "tenant_not_found") throw notFound("tenant_not_found", `tenant "${tenant}"`);
  return withDefaults(scoped.preferences);
};

preferencesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/preferences",
    tags: ["Subscribers"],
    summary: "Get a subscriber's preferences",
    description:
      "Unset channel flags read as `true` (opted in). Critical workflows ignore opt-outs. With `?tenant=`, the subscriber's preferences inside that tenant.",
    security,
    request: { params: SubscriberIdParam, query: TenantScope },
    responses: { 200: { description: "The preferences", content: json(SubscriberPreferences) } },
    errors: ["subscriber_not_found", "tenant_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { tenant } = c.req.valid("query");
    if (tenant) return c.json(scopedOrThrow(subscriberId, tenant, await c.var.data.tenantPreferences.find(subscriberId, tenant)), 200);
    const stored = await c.var.data.preferences.find(subscriberId);
    if (stored === undefined) throw missing(subscriberId);
    return c.json(withDefaults(stored), 200);
  },
);

preferencesRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/subscribers/{subscriberId}/preferences",
    tags: ["Subscribers"],
    summary: "Update a subscriber's preferences",
    description:
      "Merges into the stored preferences: flags given replace, flags omitted keep their value. What changed is recorded on the subscriber's activity with reason `api` and emitted as `subscriber.updated`. With `?tenant=`, the subscriber's preferences inside that tenant are merged instead (not recorded on the activity).",
    security,
    request: { params: SubscriberIdParam, query: TenantScope, body: { required: true, content: json(SubscriberPreferencesUpdate) } },
    responses: { 200: { description: "The preferences after the update", content: json(SubscriberPreferences) } },
    errors: ["subscriber_not_found", "tenant_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { tenant } = c.req.valid("query");
    if (tenant) {
      const scoped = await c.var.data.tenantPreferences.change(subscriberId, tenant, c.req.valid("json"));
      return c.json(scopedOrThrow(subscriberId, tenant, scoped), 200);
    }
    const merged = await changePreferences(c.var.data, c.env, subscriberId, c.req.valid("json"), "api");
    if (merged === undefined) throw missing(subscriberId);
    return c.json(withDefaults(merged), 200);
  },
);
