import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { SubscriberInput } from "../../contract/recipients";
import { eraseSubscriber } from "./erasure";
import { SubscriberIdParam } from "./preferences-schemas";
import { saveSubscriber, saveSubscribers } from "./save";
import {
  BulkSubscribersRequest,
  BulkSubscribersResult,
  Subscriber,
  SubscriberDetail,
  SubscriberErased,
  SubscriberList,
  SubscriberQuery,
} from "./schemas";

export const subscribersRoutes = createRouter();

/** `POST /sub` (the first path, kept) and `POST /v1/subscribers` (beside every other subscriber route): one operation. */
const upsertRoute = (path: "/sub" | "/v1/subscribers") =>
  apiRoute({
    method: "post",
    path,
    tags: ["Subscribers"],
    summary: path === "/sub" ? "Create or update a subscriber" : "Create or update a subscriber (as `POST /sub`)",
    description:
      path === "/sub"
        ? "Fields left out keep their stored value; `null` clears a field. Also served as `POST /v1/subscribers`."
        : "The same operation as `POST /sub`: fields left out keep their stored value; `null` clears a field.",
    security,
    request: { body: { required: true, content: { "application/json": { schema: SubscriberInput } } } },
    responses: {
      200: { description: "Updated", content: { "application/json": { schema: Subscriber } } },
      201: { description: "Created", content: { "application/json": { schema: Subscriber } } },
    },
    errors: ["destination_not_allowed"],
  });

for (const path of ["/sub", "/v1/subscribers"] as const) {
  subscribersRoutes.openapi(upsertRoute(path), async (c) => {
    const { subscriber, created } = await saveSubscriber(c.var.data, c.env, c.req.valid("json"));
    return c.json(subscriber, created ? 201 : 200);
  });
}

const bulkRoute = apiRoute({
  method: "post",
  path: "/sub/bulk",
  tags: ["Subscribers"],
  summary: "Create or update up to 500 subscribers",
  description:
    "Each subscriber is validated on its own: one bad item never fails the rest. A subscriberId given twice is written and reported once: later items override earlier ones field by field.",
  security,
  request: { body: { required: true, content: { "application/json": { schema: BulkSubscribersRequest } } } },
  responses: {
    200: { description: "Per-subscriber outcome", content: { "application/json": { schema: BulkSubscribersResult } } },
  },
});

subscribersRoutes.openapi(bulkRoute, async (c) => {
  const { subscribers } = c.req.valid("json");
  return c.json(await saveSubscribers(c.var.data, c.env, subscribers), 200);
});

const missing = (id: string) => notFound("subscriber_not_found", `subscriber "${id}"`);

subscribersRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers",
    tags: ["Subscribers"],
    summary: "List subscribers by subscriberId",
    description:
      "Filters combine: `email` and `phone` match exactly, `q` finds part of the subscriberId or name (case-insensitive), `updatedSince` keeps those changed at or after a time.",
    security,
    request: { query: SubscriberQuery },
    responses: { 200: { description: "A page of subscribers", content: json(SubscriberList) } },
  }),
  async (c) => c.json(await c.var.data.subscribers.list(c.req.valid("query")), 200),
);

subscribersRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}",
    tags: ["Subscribers"],
    summary: "Get a subscriber",
    description: "The profile, channel addresses (push tokens and webhook URLs masked), preferences and topic memberships.",
    security,
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The subscriber", content: json(SubscriberDetail) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const found = await c.var.data.subscribers.find(subscriberId);
    if (!found) throw missing(subscriberId);
    return c.json(found, 200);
  },
);

subscribersRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/subscribers/{subscriberId}",
    tags: ["Subscribers"],
    summary: "Erase a subscriber (GDPR art. 17)",
    description:
      "Removes the profile, channel addresses, preferences and topic memberships; removes the address, subject, preview, content and event details of their messages (status, channel and times stay for analytics); steps of theirs still waiting (delay, quiet hours, digest) are recorded `cancelled` with reason `subscriber_deleted`.",
    security,
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "What was erased", content: json(SubscriberErased) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const erased = await eraseSubscriber(c.var.data, c.env, subscriberId);
    if (!erased) throw missing(subscriberId);
    return c.json(erased, 200);
  },
);
