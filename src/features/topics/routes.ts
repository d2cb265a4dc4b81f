import { ApiError, notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import {
  MemberPageQuery,
  Topic,
  TopicInput,
  TopicKeyParam,
  TopicList,
  TopicMemberList,
  TopicMembersAdded,
  TopicMembersInput,
  TopicMembersRemoved,
  TopicPageQuery,
  TopicUpdate,
  TopicWithCount,
} from "./schemas";

export const topicsRoutes = createRouter();

const missing = (key: string) => notFound("topic_not_found", `topic with key "${key}"`);

topicsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/topics",
    tags: ["Topics"],
    summary: "Create a topic",
    description: "A topic is a named list of subscribers; a trigger `to: { topic: key }` goes to every member at trigger time.",
    security,
    request: { body: { required: true, content: json(TopicInput) } },
    responses: { 201: { description: "Created", content: json(Topic) } },
    errors: ["topic_exists"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await c.var.data.topics.create(input);
    if (!created) throw new ApiError("topic_exists", `A topic with key "${input.key}" already exists.`);
    return c.json(created, 201);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/topics",
    tags: ["Topics"],
    summary: "List topics",
    security,
    request: { query: TopicPageQuery },
    responses: { 200: { description: "A page of topics by key", content: json(TopicList) } },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await c.var.data.topics.list(limit, cursor), 200);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Get a topic and its member count",
    security,
    request: { params: TopicKeyParam },
    responses: { 200: { description: "The topic", content: json(TopicWithCount) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await c.var.data.topics.find(key);
    if (!topic) throw missing(key);
    return c.json(topic, 200);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "put",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Rename a topic",
    description: "The key cannot change: triggers and memberships refer to it.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicUpdate) } },
    responses: { 200: { description: "Updated", content: json(Topic) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await c.var.data.topics.update(key, c.req.valid("json"));
    if (!topic) throw missing(key);
    return c.json(topic, 200);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Delete a topic",
    description: "Its memberships go with it; the subscribers stay.",
    security,
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

topicsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "Add subscribers to a topic",
    description:
      "Up to 1,000 subscriberIds per call. Unknown subscriberIds are created as bare subscribers (no profile yet), so a topic can be filled before the profiles arrive. Adding a member twice is harmless and counted in `alreadyMembers`.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicMembersInput) } },
    responses: { 200: { description: "Added", content: json(TopicMembersAdded) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await c.var.data.topicMembers.addMembers(key, c.req.valid("json").subscriberIds);
    if (!outcome) throw missing(key);
    return c.json(outcome, 200);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "Remove subscribers from a topic",
    description: "Up to 1,000 subscriberIds per call; ids that are not members are ignored. The subscribers stay.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicMembersInput) } },
    responses: { 200: { description: "Removed", content: json(TopicMembersRemoved) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await c.var.data.topicMembers.removeMembers(key, c.req.valid("json").subscriberIds);
    if (!outcome) throw missing(key);
    return c.json(outcome, 200);
  },
);

topicsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "List a topic's members",
    security,
    request: { params: TopicKeyParam, query: MemberPageQuery },
    responses: { 200: { description: "A page of members by subscriberId", content: json(TopicMemberList) } },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const page = await c.var.data.topicMembers.members(key, limit, cursor);
    if (!page) throw missing(key);
    return c.json(page, 200);
  },
);
