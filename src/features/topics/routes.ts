import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { createRouter, problems, security } from "../../lib/openapi";
import { topicsRepository } from "./repository";
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

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const notFound = (key: string) => new ApiError("topic_not_found", `No topic with key "${key}" in this environment.`);
const repo = (c: { env: { DB: D1Database }; get: (k: "environmentId") => string }) =>
  topicsRepository(createDb(c.env.DB), c.get("environmentId"));

topicsRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/topics",
    tags: ["Topics"],
    summary: "Create a topic",
    description: "A topic is a named list of subscribers; a trigger `to: { topic: key }` goes to every member at trigger time.",
    security,
    request: { body: { required: true, content: json(TopicInput) } },
    responses: { 201: { description: "Created", content: json(Topic) }, ...problems(400, 401, 409, 415, 422) },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const created = await repo(c).create(input);
    if (!created) throw new ApiError("topic_exists", `A topic with key "${input.key}" already exists.`);
    return c.json(created, 201);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/topics",
    tags: ["Topics"],
    summary: "List topics",
    security,
    request: { query: TopicPageQuery },
    responses: { 200: { description: "A page of topics by key", content: json(TopicList) }, ...problems(401, 422) },
  }),
  async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await repo(c).list(limit, cursor), 200);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Get a topic and its member count",
    security,
    request: { params: TopicKeyParam },
    responses: { 200: { description: "The topic", content: json(TopicWithCount) }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await repo(c).find(key);
    if (!topic) throw notFound(key);
    return c.json(topic, 200);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Rename a topic",
    description: "The key cannot change: triggers and memberships refer to it.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicUpdate) } },
    responses: { 200: { description: "Updated", content: json(Topic) }, ...problems(400, 401, 404, 415, 422) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const topic = await repo(c).update(key, c.req.valid("json"));
    if (!topic) throw notFound(key);
    return c.json(topic, 200);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/topics/{key}",
    tags: ["Topics"],
    summary: "Delete a topic",
    description: "Its memberships go with it; the subscribers stay.",
    security,
    request: { params: TopicKeyParam },
    responses: { 204: { description: "Deleted" }, ...problems(401, 404) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    if (!(await repo(c).remove(key))) throw notFound(key);
    return c.body(null, 204);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "Add subscribers to a topic",
    description:
      "Up to 1,000 subscriberIds per call. Unknown subscriberIds are created as bare subscribers (no profile yet), so a topic can be filled before the profiles arrive. Adding a member twice is harmless and counted in `alreadyMembers`.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicMembersInput) } },
    responses: { 200: { description: "Added", content: json(TopicMembersAdded) }, ...problems(400, 401, 404, 415, 422) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await repo(c).addMembers(key, c.req.valid("json").subscriberIds);
    if (!outcome) throw notFound(key);
    return c.json(outcome, 200);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "Remove subscribers from a topic",
    description: "Up to 1,000 subscriberIds per call; ids that are not members are ignored. The subscribers stay.",
    security,
    request: { params: TopicKeyParam, body: { required: true, content: json(TopicMembersInput) } },
    responses: { 200: { description: "Removed", content: json(TopicMembersRemoved) }, ...problems(400, 401, 404, 415, 422) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const outcome = await repo(c).removeMembers(key, c.req.valid("json").subscriberIds);
    if (!outcome) throw notFound(key);
    return c.json(outcome, 200);
  },
);

topicsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/v1/topics/{key}/subscribers",
    tags: ["Topics"],
    summary: "List a topic's members",
    security,
    request: { params: TopicKeyParam, query: MemberPageQuery },
    responses: { 200: { description: "A page of members by subscriberId", content: json(TopicMemberList) }, ...problems(401, 404, 422) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const page = await repo(c).members(key, limit, cursor);
    if (!page) throw notFound(key);
    return c.json(page, 200);
  },
);
