import { createDb } from "../../db/client";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, fieldErrors } from "../../lib/errors";
import { apiRoute, createRouter, security } from "../../lib/openapi";
import { SubscriberInput } from "../../contract/recipients";
import { upsertSubscribers } from "../../db/queries/subscribers";
import { refusedSubscriberDestinations } from "./destinations";
import { findSubscriber } from "./repository";
import { BulkSubscribersRequest, BulkSubscribersResult, Subscriber } from "./schemas";
import type { BulkSubscribersResult as BulkResult } from "./schemas";

export const subscribersRoutes = createRouter();

const upsertRoute = apiRoute({
  method: "post",
  path: "/sub",
  tags: ["Subscribers"],
  summary: "Create or update a subscriber",
  description: "Fields left out keep their stored value; `null` clears a field.",
  security,
  request: { body: { required: true, content: { "application/json": { schema: SubscriberInput } } } },
  responses: {
    200: { description: "Updated", content: { "application/json": { schema: Subscriber } } },
    201: { description: "Created", content: { "application/json": { schema: Subscriber } } },
  },
  errors: ["destination_not_allowed"],
});

const destinationRefused = (errors: ReturnType<typeof refusedSubscriberDestinations>) =>
  new ApiError("destination_not_allowed", "A chat webhook or push endpoint is loopback, private, link-local or not https.", errors);

subscribersRoutes.openapi(upsertRoute, async (c) => {
  const environmentId = c.get("environmentId");
  const db = createDb(c.env.DB);
  const input = c.req.valid("json");
  const refused = refusedSubscriberDestinations(input, destinationOptions(c.env));
  if (refused.length) throw destinationRefused(refused);
  const [outcome] = await upsertSubscribers(db, environmentId, [input]);
  const stored = await findSubscriber(db, environmentId, input.subscriberId);
  if (!outcome || !stored) throw new Error("subscriber upsert returned no row");
  return c.json(stored, outcome.created ? 201 : 200);
});

const bulkRoute = apiRoute({
  method: "post",
  path: "/sub/bulk",
  tags: ["Subscribers"],
  summary: "Create or update up to 500 subscribers",
  description: "Each subscriber is validated on its own: one bad item never fails the rest.",
  security,
  request: { body: { required: true, content: { "application/json": { schema: BulkSubscribersRequest } } } },
  responses: {
    200: { description: "Per-subscriber outcome", content: { "application/json": { schema: BulkSubscribersResult } } },
  },
});

subscribersRoutes.openapi(bulkRoute, async (c) => {
  const environmentId = c.get("environmentId");
  const { subscribers } = c.req.valid("json");
  const valid: SubscriberInput[] = [];
  const failed: BulkResult["failed"] = [];
  const policy = destinationOptions(c.env);
  subscribers.forEach((item, index) => {
    const parsed = SubscriberInput.safeParse(item);
    const refused = parsed.success ? refusedSubscriberDestinations(parsed.data, policy) : [];
    if (parsed.success && !refused.length) {
      valid.push(parsed.data);
      return;
    }
    const error = parsed.success
      ? destinationRefused(refused)
      : new ApiError("validation_failed", "The subscriber does not match the expected schema.", fieldErrors(parsed.error.issues));
    const id = (item as { subscriberId?: unknown } | null)?.subscriberId;
    failed.push({
      index,
      subscriberId: typeof id === "string" ? id : null,
      error: error.toProblem(),
    });
  });
  const outcomes = await upsertSubscribers(createDb(c.env.DB), environmentId, valid);
  return c.json(
    {
      created: outcomes.filter((o) => o.created).map((o) => o.subscriberId),
      updated: outcomes.filter((o) => !o.created).map((o) => o.subscriberId),
      failed,
    },
    200,
  );
});
