import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { changePreferences } from "./change-preferences";
import { withDefaults } from "./preferences";
import { SubscriberIdParam, SubscriberPreferences, SubscriberPreferencesUpdate } from "./preferences-schemas";

export const preferencesRoutes = createRouter();

const missing = (id: string) => notFound("subscriber_not_found", `subscriber "${id}"`);

preferencesRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/preferences",
    tags: ["Subscribers"],
    summary: "Get a subscriber's preferences",
    description: "Unset channel flags read as `true` (opted in). Critical workflows ignore opt-outs.",
    security,
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The preferences", content: json(SubscriberPreferences) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
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
      "Merges into the stored preferences: flags given replace, flags omitted keep their value. What changed is recorded on the subscriber's activity with reason `api` and emitted as `subscriber.updated`.",
    security,
    request: { params: SubscriberIdParam, body: { required: true, content: json(SubscriberPreferencesUpdate) } },
    responses: { 200: { description: "The preferences after the update", content: json(SubscriberPreferences) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const merged = await changePreferences(c.var.data, c.env, subscriberId, c.req.valid("json"), "api");
    if (merged === undefined) throw missing(subscriberId);
    return c.json(withDefaults(merged), 200);
  },
);
