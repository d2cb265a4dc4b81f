// `@novu/api`'s listings (`subscribers.search`, `topics.list`, `topics.subscriptions.list`): Novu
// v2's cursor pages over Clarion's keyset lists. Both order by their key (subscriberId, topic
// key); `orderBy` is accepted and ignored, `orderDirection` turns the order round.
import { z } from "@hono/zod-openapi";
import { notFound } from "../lib/errors";
import { TOTAL_COUNT_CAP } from "../db/keyset-window";
import { createRouter, json } from "../lib/openapi";
import { SubscriberCursor } from "../features/subscribers/cursor";
import { SubscriberIdParam } from "../features/subscribers/preferences-schemas";
import { type Topic, TopicKeyParam } from "../features/topics/schemas";
import { novuRoute } from "./routing";
import { NovuSubscriber, NovuTopic, toNovuSubscriber, toNovuTopic } from "./shapes";

export const novuListsV2Routes = createRouter();

const text = (max: number) => z.string().trim().min(1).max(max).optional();

/** Novu's cursor query: `after` or `before` a cursor of the previous answer, 1 to 100 items (10 by default). */
const windowQuery = <C extends z.ZodType<string | undefined>>(cursor: C) =>
  z.object({
    after: cursor.openapi({ description: "The `next` of the previous page." }),
    before: cursor.openapi({ description: "The `previous` of the previous page." }),
    limit: z.coerce.number().int().min(1).max(100).default(10),
    orderDirection: z.enum(["ASC", "DESC"]).optional(),
    orderBy: z.string().max(64).optional().openapi({ description: "Accepted and ignored: lists are ordered by their key." }),
    includeCursor: z.enum(["true", "false"]).optional().openapi({ description: "`true`: the item named by the cursor is on the page." }),
  });

interface WindowQuery {
  after?: string | undefined;
  before?: string | undefined;
  limit: number;
  orderDirection?: "ASC" | "DESC" | undefined;
  includeCursor?: "true" | "false" | undefined;
}
const windowOf = (q: WindowQuery) => ({
  after: q.after,
  before: q.before,
  limit: q.limit,
  descending: q.orderDirection === "DESC",
  includeCursor: q.includeCursor === "true",
});

/** Novu's list answer: not wrapped in `{ data }`, the list is its `data`. */
const cursorList = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    totalCount: z
      .number()
      .int()
      .openapi({ description: `Counted up to ${TOTAL_COUNT_CAP.toLocaleString("en")}.` }),
    totalCountCapped: z.boolean(),
  });

const listOf = <R, T>(
  page: { rows: R[]; next: string | null; previous: string | null; totalCount: number; totalCountCapped: boolean },
  map: (row: R) => T,
) => ({
  data: page.rows.map(map),
  next: page.next,
  previous: page.previous,
  totalCount: page.totalCount,
  totalCountCapped: page.totalCountCapped,
});

novuListsV2Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/subscribers",
    summary: "Search subscribers (Novu)",
    description:
      "`email`, `phone` and `subscriberId` match exactly; `name` is part of the full name (case-insensitive). Push tokens and webhook URLs are masked.",
    request: {
      query: windowQuery(SubscriberCursor.optional()).extend({
        email: text(320),
        phone: text(16),
        subscriberId: text(256),
        name: text(100),
      }),
    },
    responses: { 200: { description: "A page of subscribers", content: json(cursorList(NovuSubscriber).openapi("NovuSubscriberList")) } },
  }),
  async (c) => {
    const { email, phone, subscriberId, name, ...window } = c.req.valid("query");
    const { environmentId } = c.var.data;
    const page = await c.var.data.subscribers.search({ email, phone, subscriberId, name }, windowOf(window));
    return c.json(
      listOf(page, (s) => toNovuSubscriber(environmentId, s.id, s)),
      200,
    );
  },
);

novuListsV2Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/topics",
    summary: "List topics (Novu)",
    description: "`key` matches exactly; `name` is part of the name (case-insensitive).",
    request: { query: windowQuery(text(128)).extend({ key: text(128), name: text(256) }) },
    responses: { 200: { description: "A page of topics", content: json(cursorList(NovuTopic).openapi("NovuTopicList")) } },
  }),
  async (c) => {
    const { key, name, ...window } = c.req.valid("query");
    return c.json(listOf(await c.var.data.topics.search({ key, name }, windowOf(window)), toNovuTopic), 200);
  },
);

const NovuTopicSubscription = z
  .object({
    _id: z.string(),
    identifier: z.string().openapi({ description: "`{topicKey}:{subscriberId}`: Clarion keeps one subscription per member." }),
    createdAt: z.iso.datetime(),
    topic: z.object({ _id: z.string(), key: z.string(), name: z.string() }),
    subscriber: z.object({ _id: z.string(), subscriberId: z.string() }),
  })
  .openapi("NovuTopicSubscription");

const NovuTopicSubscriptionList = cursorList(NovuTopicSubscription).openapi("NovuTopicSubscriptionList");

const subscription = (topic: Topic, subscriber: { _id: string; subscriberId: string }, createdAt: string) => ({
  _id: `${topic.id}:${subscriber.subscriberId}`,
  identifier: `${topic.key}:${subscriber.subscriberId}`,
  createdAt,
  topic: { _id: topic.id, key: topic.key, name: topic.name },
  subscriber,
});

novuListsV2Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/topics/{key}/subscriptions",
    summary: "List a topic's subscriptions (Novu)",
    description: "One subscription per member, by subscriberId; `subscriberId` keeps that member only. `contextKeys` is ignored.",
    request: { params: TopicKeyParam, query: windowQuery(text(256)).extend({ subscriberId: text(256) }) },
    responses: {
      200: {
        description: "A page of subscriptions",
        content: json(NovuTopicSubscriptionList),
      },
    },
    errors: ["topic_not_found"],
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const { subscriberId, ...window } = c.req.valid("query");
    const page = await c.var.data.topicMembers.searchMembers(key, subscriberId, windowOf(window));
    if (!page) throw notFound("topic_not_found", `topic with key "${key}"`);
    return c.json(
      listOf(page, (m) => subscription(page.topic, { _id: m.internalId, subscriberId: m.subscriberId }, m.createdAt)),
      200,
    );
  },
);

novuListsV2Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/subscribers/{subscriberId}/subscriptions",
    summary: "List a subscriber's topic subscriptions (Novu)",
    description: "One per topic the subscriber is a member of, by topic key; `key` keeps that topic only. `contextKeys` is ignored.",
    request: { params: SubscriberIdParam, query: windowQuery(text(128)).extend({ key: text(128) }) },
    responses: {
      200: {
        description: "A page of subscriptions",
        content: json(NovuTopicSubscriptionList),
      },
    },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { key, ...window } = c.req.valid("query");
    const page = await c.var.data.topicMembers.searchSubscriptions(subscriberId, key, windowOf(window));
    if (!page) throw notFound("subscriber_not_found", `subscriber "${subscriberId}"`);
    return c.json(
      listOf(page, (s) => subscription(s.topic, { _id: page.internalId, subscriberId }, s.createdAt)),
      200,
    );
  },
);
