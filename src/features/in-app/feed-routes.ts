import type { Context } from "hono";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import type { AppEnv } from "../../env";
import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { filterOf, inboxService, toNotification } from "./feed";
import {
  feedCursor,
  FeedParams,
  FeedTenantQuery,
  InAppChange,
  InAppCounts,
  InAppCountsQuery,
  InAppFeedQuery,
  InAppMarkAll,
  InAppMarkAllResult,
  InAppNotification,
  InAppNotificationList,
  NotificationParams,
} from "./schemas";

export const feedRoutes = createRouter();

/** `?tenant=` narrows every read and change to that tenant's notifications; without it, the subscriber's whole feed. */
const inbox = (c: Context<AppEnv>) => (subscriberId: string, tenant?: string) =>
  inboxService(c.var.data, subscriberId, inboxSockets(c.env.INBOX_SOCKETS), c.env, tenant === undefined ? {} : { tenantId: tenant });
const tags = ["In-app"];
const missing = (id: string) => notFound("subscriber_not_found", `subscriber "${id}"`);

feedRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/notifications",
    tags,
    summary: "List a subscriber's in-app notifications",
    description:
      "Newest first, in cursor pages. The same notifications and statuses the subscriber's Inbox shows. `?tenant=` lists only that tenant's (its Inbox sessions see exactly their context's).",
    security,
    request: { params: FeedParams, query: InAppFeedQuery },
    responses: { 200: { description: "A page of notifications", content: json(InAppNotificationList) } },
    errors: ["bad_request", "subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { limit, cursor, tenant, ...query } = c.req.valid("query");
    const [after] = feedCursor.read(cursor) ?? [];
    const { feed } = inbox(c)(subscriberId, tenant);
    const page = await feed.list(filterOf(query), limit, after);
    // Only an empty page costs the existence check.
    if (page.data.length === 0 && !(await feed.subscriberExists())) throw missing(subscriberId);
    const data = page.data.map(toNotification);
    const last = data.at(-1);
    return c.json({ data, nextCursor: page.hasMore && last ? feedCursor.encode([last.id]) : null }, 200);
  },
);

feedRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/notifications/counts",
    tags,
    summary: "Count a subscriber's in-app notifications",
    description: "Exact totals (never capped) of the notifications the filters match.",
    security,
    request: { params: FeedParams, query: InAppCountsQuery },
    responses: { 200: { description: "The counts", content: json(InAppCounts) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { tenant, ...query } = c.req.valid("query");
    const { feed } = inbox(c)(subscriberId, tenant);
    const counts = await feed.counts(filterOf(query));
    if (counts.total === 0 && !(await feed.subscriberExists())) throw missing(subscriberId);
    return c.json(counts, 200);
  },
);

feedRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/subscribers/{subscriberId}/notifications/{messageId}",
    tags,
    summary: "Mark one in-app notification read, seen or archived",
    description: "`true` sets the moment (the first one is kept), `false` clears it. Reading also marks seen.",
    security,
    request: { params: NotificationParams, query: FeedTenantQuery, body: { required: true, content: json(InAppChange) } },
    responses: { 200: { description: "The notification after the change", content: json(InAppNotification) } },
    errors: ["message_not_found"],
  }),
  async (c) => {
    const { subscriberId, messageId } = c.req.valid("param");
    const row = await inbox(c)(subscriberId, c.req.valid("query").tenant).change(messageId, c.req.valid("json"));
    if (!row) throw notFound("message_not_found", `in-app notification "${messageId}" for subscriber "${subscriberId}"`);
    return c.json(toNotification(row), 200);
  },
);

feedRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/subscribers/{subscriberId}/notifications/mark-all",
    tags,
    summary: "Mark every matching in-app notification",
    description: "Marks all of the subscriber's notifications (or those `filter` matches) read, seen or archived.",
    security,
    request: { params: FeedParams, query: FeedTenantQuery, body: { required: true, content: json(InAppMarkAll) } },
    responses: { 200: { description: "How many changed, and the counts after", content: json(InAppMarkAllResult) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { filter, ...change } = c.req.valid("json");
    const service = inbox(c)(subscriberId, c.req.valid("query").tenant);
    const ids = await service.changeAll(change, filterOf({ ...filter, tags: filter?.tags?.join(",") }));
    if (ids.length === 0 && !(await service.feed.subscriberExists())) throw missing(subscriberId);
    return c.json({ updated: ids.length, counts: await service.feed.counts() }, 200);
  },
);
