// `@novu/node`'s listings and topic read: Novu v1's page numbers over Clarion's lists. A page is
// an `OFFSET` read of at most 100 rows by key: bounded per call, dearer the deeper it goes.
import { z } from "@hono/zod-openapi";
import { notFound } from "../lib/errors";
import { TOTAL_COUNT_CAP } from "../db/keyset-window";
import { createRouter, json } from "../lib/openapi";
import { MAX_MEMBERS_PER_CALL, type Topic, TopicKeyParam } from "../features/topics/schemas";
import { novuRoute } from "./routing";
import { envelope, NovuSubscriber, toNovuSubscriber } from "./shapes";

export const novuListsV1Routes = createRouter();

const pageNumber = z.coerce.number().int().min(0).max(1_000_000).default(0).openapi({ description: "From 0." });
const pageSize = z.coerce.number().int().min(1).max(100).default(10);
const totalCount = z
  .number()
  .int()
  .openapi({ description: `Counted up to ${TOTAL_COUNT_CAP.toLocaleString("en")}.` });

const NovuV1Topic = z
  .object({ _id: z.string(), _organizationId: z.string(), _environmentId: z.string(), key: z.string(), name: z.string() })
  .openapi("NovuV1Topic");

const v1Topic = (environmentId: string, t: Topic) => ({
  _id: t.id,
  _organizationId: environmentId,
  _environmentId: environmentId,
  key: t.key,
  name: t.name,
});

novuListsV1Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/subscribers",
    summary: "List subscribers by page (Novu)",
    description: "By subscriberId, `limit` to a page. Push tokens and webhook URLs are masked.",
    request: { query: z.object({ page: pageNumber, limit: pageSize }) },
    responses: {
      200: {
        description: "A page of subscribers",
        content: json(
          z
            .object({ page: z.number().int(), totalCount, pageSize: z.number().int(), hasMore: z.boolean(), data: z.array(NovuSubscriber) })
            .openapi("NovuV1SubscriberPage"),
        ),
      },
    },
  }),
  async (c) => {
    const { page, limit } = c.req.valid("query");
    const { environmentId } = c.var.data;
    const found = await c.var.data.subscribers.atOffset({}, page, limit);
    const data = found.rows.map((s) => toNovuSubscriber(environmentId, s.id, s));
    return c.json({ page, totalCount: found.totalCount, pageSize: limit, hasMore: found.hasMore, data }, 200);
  },
);

novuListsV1Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/topics",
    summary: "List topics by page (Novu)",
    description: "By key; `key` keeps that topic only.",
    request: { query: z.object({ page: pageNumber, pageSize, key: z.string().trim().min(1).max(128).optional() }) },
    responses: {
      200: {
        description: "A page of topics",
        content: json(
          z
            .object({ page: z.number().int(), pageSize: z.number().int(), totalCount, data: z.array(NovuV1Topic) })
            .openapi("NovuV1TopicPage"),
        ),
      },
    },
  }),
  async (c) => {
    const { page, pageSize: size, key } = c.req.valid("query");
    const { environmentId } = c.var.data;
    const found = await c.var.data.topics.atOffset({ key }, page, size);
    return c.json({ page, pageSize: size, totalCount: found.totalCount, data: found.rows.map((t) => v1Topic(environmentId, t)) }, 200);
  },
);

novuListsV1Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/topics/{key}",
    summary: "Get a topic with its members (Novu)",
    description: `\`subscribers\` holds the first ${MAX_MEMBERS_PER_CALL.toLocaleString("en")} members by subscriberId, where Novu lists every one; Clarion's \`GET /v1/topics/{key}/subscribers\` pages through all.`,
    request: { params: TopicKeyParam },
    responses: {
      200: {
        description: "The topic",
        content: json(envelope(NovuV1Topic.extend({ subscribers: z.array(z.string()) }).openapi("NovuV1TopicWithMembers"))),
      },
    },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { environmentId } = c.var.data;
    const [topic, members] = await Promise.all([c.var.data.topics.find(key), c.var.data.topicMembers.members(key, MAX_MEMBERS_PER_CALL)]);
    if (!topic || !members) throw notFound("topic_not_found", `topic with key "${key}"`);
    return c.json({ data: { ...v1Topic(environmentId, topic), subscribers: members.data.map((m) => m.subscriberId) } }, 200);
  },
);
