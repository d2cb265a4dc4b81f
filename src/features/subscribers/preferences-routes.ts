import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { createRouter, problems, security } from "../../lib/openapi";
import { withDefaults } from "./preferences";
import { preferencesRepository } from "./preferences-repository";
import { SubscriberIdParam, SubscriberPreferences, SubscriberPreferencesUpdate } from "./preferences-schemas";

export const preferencesRoutes = createRouter();

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const notFound = (id: string) => new ApiError("subscriber_not_found", `No subscriber "${id}" in this environment.`);
const repo = (c: { env: { DB: D1Database }; get: (k: "environmentId") => string }) =>
  preferencesRepository(createDb(c.env.DB), c.get("environmentId"));

preferencesRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/preferences",
    tags: ["Subscribers"],
    summary: "Get a subscriber's preferences",
    description: "Unset channel flags read as `true` (opted in). Critical workflows ignore opt-outs.",
    security,
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The preferences", content: json(SubscriberPreferences) }, ...problems(401, 404, 422) },
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const stored = await repo(c).find(subscriberId);
    if (stored === undefined) throw notFound(subscriberId);
    return c.json(withDefaults(stored), 200);
  },
);

preferencesRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/subscribers/{subscriberId}/preferences",
    tags: ["Subscribers"],
    summary: "Update a subscriber's preferences",
    description: "Merges into the stored preferences: flags given replace, flags omitted keep their value.",
    security,
    request: { params: SubscriberIdParam, body: { required: true, content: json(SubscriberPreferencesUpdate) } },
    responses: { 200: { description: "The preferences after the update", content: json(SubscriberPreferences) }, ...problems(400, 401, 404, 415, 422) },
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const merged = await repo(c).merge(subscriberId, c.req.valid("json"));
    if (merged === undefined) throw notFound(subscriberId);
    return c.json(withDefaults(merged), 200);
  },
);
