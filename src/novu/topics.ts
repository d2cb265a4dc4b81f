// Novu's topic calls over Clarion's topics: `@novu/node` on `/novu/v1/topics…` (`{ subscribers }`),
// `@novu/api` on `/novu/v2/topics…` (`{ subscriptions }`). Unknown subscriberIds become bare
// subscribers, as Clarion's `POST /v1/topics/{key}/subscribers` makes them.
import { z } from "@hono/zod-openapi";
import { ApiError, notFound, validationError } from "../lib/errors";
import { createRouter, json } from "../lib/openapi";
import { MAX_MEMBERS_PER_CALL, type Topic, TopicInput, TopicKeyParam } from "../features/topics/schemas";
import { NovuErrorBody, novuErrorBody } from "./errors";
import { novuRoute } from "./routing";
import { envelope, NovuTopic, toNovuTopic } from "./shapes";

export const novuTopicsRoutes = createRouter();

const missing = (key: string) => notFound("topic_not_found", `topic with key "${key}"`);

const SubscriberIds = z.array(z.string().trim().min(1).max(256)).min(1).max(MAX_MEMBERS_PER_CALL);
const V1Members = z
  .object({ subscribers: SubscriberIds })
  .openapi("NovuTopicSubscribersInput", { example: { subscribers: ["user-42", "user-43"] } });

novuTopicsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/topics/{key}/subscribers/removal",
    summary: "Remove subscribers from a topic (Novu)",
    request: { params: TopicKeyParam, body: { required: true, content: json(V1Members) } },
    responses: { 204: { description: "Removed" } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await c.var.data.topicMembers.removeMembers(key, c.req.valid("json").subscribers))) throw missing(key);
    return c.body(null, 204);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/topics/{key}/subscribers",
    summary: "Add subscribers to a topic (Novu)",
    request: { params: TopicKeyParam, body: { required: true, content: json(V1Members) } },
    responses: {
      200: {
        description: "The subscribers added (or already members)",
        content: json(
          envelope(
            z.object({ succeeded: z.array(z.string()), failed: z.record(z.string(), z.unknown()) }).openapi("NovuTopicMembersAdded"),
          ),
        ),
      },
    },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { subscribers } = c.req.valid("json");
    if (!(await c.var.data.topicMembers.addMembers(key, subscribers))) throw missing(key);
    return c.json({ data: { succeeded: [...new Set(subscribers)], failed: {} } }, 200);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/topics",
    summary: "Create a topic (Novu)",
    request: {
      body: {
        required: true,
        content: json(TopicInput.openapi("NovuV1TopicInput", { example: { key: "product-news", name: "Product news" } })),
      },
    },
    responses: {
      201: {
        description: "Created",
        content: json(envelope(z.object({ _id: z.string(), key: z.string() }).openapi("NovuV1TopicCreated"))),
      },
    },
    errors: ["topic_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await c.var.data.topics.create(input);
    if (!created) throw new ApiError("topic_exists", `A topic with key "${input.key}" already exists.`);
    return c.json({ data: { _id: created.id, key: created.key } }, 201);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "delete",
    path: "/v1/topics/{key}",
    summary: "Delete a topic (Novu)",
    description: "Its memberships go with it (Novu refuses a topic that still has subscribers); the subscribers stay.",
    request: { params: TopicKeyParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await c.var.data.topics.remove(key))) throw missing(key);
    return c.body(null, 204);
  },
);

const UpsertInput = TopicInput.extend({ name: TopicInput.shape.name.optional() })
  .strip()
  .openapi("NovuTopicInput", { example: { key: "product-news", name: "Product news" } });

novuTopicsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v2/topics",
    summary: "Create or update a topic (Novu)",
    description:
      "201 with a new topic; 200 when the key exists (its name is updated when given), or with `failIfExists=true` a 409 carrying the existing topic. Without `name`, a new topic is named by its key.",
    request: {
      query: z.object({ failIfExists: z.enum(["true", "false"]).optional() }),
      body: { required: true, content: json(UpsertInput) },
    },
    responses: {
      200: { description: "Updated", content: json(envelope(NovuTopic)) },
      201: { description: "Created", content: json(envelope(NovuTopic)) },
      409: {
        description:
          "With `failIfExists=true`, the key is taken: Novu's error body (`code` `topic_exists`) merged with the existing topic.",
        content: json(NovuTopic.extend(NovuErrorBody.shape).openapi("NovuTopicExists")),
      },
    },
  }),
  async (c) => {
    const { key, name } = c.req.valid("json");
    const created = await c.var.data.topics.create({ key, name: name ?? key });
    if (created) return c.json({ data: toNovuTopic(created) }, 201);
    if (c.req.valid("query").failIfExists === "true") {
      const existing = await c.var.data.topics.find(key);
      if (existing) {
        const problem = new ApiError("topic_exists", `A topic with key "${key}" already exists.`).toProblem(c.get("requestId"));
        return c.json({ ...toNovuTopic(existing), ...novuErrorBody(problem, c.req.path) }, 409);
      }
    }
    const topic = name ? await c.var.data.topics.update(key, { name }) : await c.var.data.topics.find(key);
    if (!topic) throw missing(key);
    return c.json({ data: toNovuTopic(topic) }, 200);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/topics/{key}",
    summary: "Get a topic (Novu)",
    request: { params: TopicKeyParam },
    responses: { 200: { description: "The topic", content: json(envelope(NovuTopic)) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await c.var.data.topics.find(key);
    if (!topic) throw missing(key);
    return c.json({ data: toNovuTopic(topic) }, 200);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "delete",
    path: "/v2/topics/{key}",
    summary: "Delete a topic (Novu)",
    description: "Its memberships go with it; the subscribers stay.",
    request: { params: TopicKeyParam },
    responses: { 200: { description: "Deleted", content: json(envelope(z.object({ acknowledged: z.literal(true) }))) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await c.var.data.topics.remove(key))) throw missing(key);
    return c.json({ data: { acknowledged: true as const } }, 200);
  },
);

/** Novu names members by subscriberId, as strings or `{ subscriberId }` (its `identifier` is ignored). */
const SubscriptionsInput = z
  .object({
    subscriptions: z
      .array(z.union([z.string().trim().min(1).max(256), z.object({ subscriberId: z.string().trim().min(1).max(256) })]))
      .optional(),
    subscriberIds: z.array(z.string().trim().min(1).max(256)).optional(),
  })
  .refine((b) => (b.subscriptions?.length ?? 0) + (b.subscriberIds?.length ?? 0) > 0, {
    message: "Name at least one subscriber.",
    path: ["subscriptions"],
  })
  .refine((b) => (b.subscriptions?.length ?? 0) + (b.subscriberIds?.length ?? 0) <= MAX_MEMBERS_PER_CALL, {
    message: `At most ${MAX_MEMBERS_PER_CALL} subscribers per call.`,
    path: ["subscriptions"],
  })
  .openapi("NovuSubscriptionsInput", { example: { subscriptions: ["user-42", { subscriberId: "user-43" }] } });

const idsOf = (b: z.infer<typeof SubscriptionsInput>) => [
  ...new Set([...(b.subscriptions ?? []).map((s) => (typeof s === "string" ? s : s.subscriberId)), ...(b.subscriberIds ?? [])]),
];

const Subscription = z
  .object({
    _id: z.string(),
    topic: z.object({ _id: z.string(), key: z.string(), name: z.string() }),
    subscriber: z.object({ _id: z.string(), subscriberId: z.string() }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("NovuSubscription");

const SubscriptionsResult = z
  .object({
    data: z.array(Subscription),
    meta: z.object({ totalCount: z.number().int(), successful: z.number().int(), failed: z.number().int() }),
  })
  .openapi("NovuSubscriptionsResult");

const subscriptionsOf = (topic: Topic, ids: string[], at: string) => ({
  data: ids.map((subscriberId) => ({
    _id: `${topic.id}:${subscriberId}`,
    topic: { _id: topic.id, key: topic.key, name: topic.name },
    subscriber: { _id: subscriberId, subscriberId },
    createdAt: at,
    updatedAt: at,
  })),
  meta: { totalCount: ids.length, successful: ids.length, failed: 0 },
});

novuTopicsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v2/topics/{key}/subscriptions",
    summary: "Subscribe subscribers to a topic (Novu)",
    description: "Creates the topic (named by its key) when it does not exist, as Novu does.",
    request: { params: TopicKeyParam, body: { required: true, content: json(SubscriptionsInput) } },
    responses: { 201: { description: "The subscriptions", content: json(SubscriptionsResult) } },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const parsedKey = TopicInput.shape.key.safeParse(key);
    if (!parsedKey.success) throw validationError(parsedKey.error.issues.map((i) => ({ ...i, path: ["key"] })));
    const ids = idsOf(c.req.valid("json"));
    const topic = (await c.var.data.topics.create({ key, name: key })) ?? (await c.var.data.topics.find(key));
    if (!topic || !(await c.var.data.topicMembers.addMembers(key, ids))) throw missing(key);
    return c.json(subscriptionsOf(topic, ids, new Date().toISOString()), 201);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "delete",
    path: "/v2/topics/{key}/subscriptions",
    summary: "Unsubscribe subscribers from a topic (Novu)",
    request: { params: TopicKeyParam, body: { required: true, content: json(SubscriptionsInput) } },
    responses: { 200: { description: "The subscriptions removed", content: json(SubscriptionsResult) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const ids = idsOf(c.req.valid("json"));
    const topic = await c.var.data.topics.find(key);
    if (!topic || !(await c.var.data.topicMembers.removeMembers(key, ids))) throw missing(key);
    return c.json(subscriptionsOf(topic, ids, new Date().toISOString()), 200);
  },
);

novuTopicsRoutes.openapi(
  novuRoute({
    method: "patch",
    path: "/v1/topics/{key}",
    summary: "Rename a topic (Novu)",
    request: {
      params: TopicKeyParam,
      body: {
        required: true,
        content: json(TopicInput.pick({ name: true }).openapi("NovuTopicRename", { example: { name: "Product news" } })),
      },
    },
    responses: { 200: { description: "The topic", content: json(envelope(NovuTopic)) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await c.var.data.topics.update(key, c.req.valid("json"));
    if (!topic) throw missing(key);
    return c.json({ data: toNovuTopic(topic) }, 200);
  },
);

const TopicPatch = z
  .object({ name: TopicInput.shape.name.optional(), data: z.record(z.string(), z.unknown()).nullable().optional() })
  .openapi("NovuTopicPatch", { example: { name: "Product news" } });

novuTopicsRoutes.openapi(
  novuRoute({
    method: "patch",
    path: "/v2/topics/{key}",
    summary: "Update a topic (Novu)",
    description: "Renames the topic; without `name` it is left as it is. `data` is accepted and ignored: Clarion's topics hold none.",
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicPatch) } },
    responses: { 200: { description: "The topic", content: json(envelope(NovuTopic)) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { name } = c.req.valid("json");
    const topic = name ? await c.var.data.topics.update(key, { name }) : await c.var.data.topics.find(key);
    if (!topic) throw missing(key);
    return c.json({ data: toNovuTopic(topic) }, 200);
  },
);
