// One subscriber's notifications as `@novu/js` reads and changes them. Every change goes through
// `inboxService`, as the server feed API's do, so tracking and realtime pushes follow browser writes too.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { InAppChange, InAppRow } from "../../db/queries/in-app";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import { notFound, validationError } from "../../lib/errors";
import { json } from "../../lib/openapi";
import { inboxService } from "../../features/in-app/feed";
import { envelope } from "../shapes";
import { feedFilterOf, filterFromQuery, parseFilter, parseJsonParam } from "./filters";
import { toInboxNotification } from "./notifications";
import { type InboxEnv, inboxRoute, inboxRouter } from "./routing";
import {
  ActionBody,
  InboxCountQuery,
  InboxCounts,
  InboxListQuery,
  InboxNotification,
  InboxNotificationList,
  NotificationIdParam,
  MAX_SNOOZE_HOURS,
  SnoozeBody,
} from "./schemas";
import { inboxWorkflows } from "./workflows-repository";

export const inboxNotificationRoutes = inboxRouter();

const MAX_COUNT_FILTERS = 30;

const scope = (c: Context<InboxEnv>) => {
  return {
    service: inboxService(c.var.data, c.get("subscriberId"), inboxSockets(c.env.INBOX_SOCKETS), c.env, {
      context: c.var.inboxContext.context,
    }),
  };
};

async function present(c: Context<InboxEnv>, rows: InAppRow[], now: Date) {
  const workflows = await c.var.data.repository(inboxWorkflows).byKeys(rows.map((r) => r.workflowKey));
  return rows.map((row) => toInboxNotification(row, workflows.get(row.workflowKey), now));
}

inboxNotificationRoutes.openapi(
  inboxRoute({
    method: "get",
    path: "/v1/inbox/notifications",
    summary: "List the subscriber's notifications",
    description:
      "Newest first. `after` is the id of the last notification of the previous page. Not wrapped in `{ data }` alone: `hasMore` and `filter` sit beside it.",
    request: { query: InboxListQuery },
    responses: { 200: { description: "A page", content: json(InboxNotificationList) } },
  }),
  async (c) => {
    const { limit, after, offset } = c.req.valid("query");
    const filter = filterFromQuery(new URL(c.req.url));
    const now = new Date();
    const feedFilter = feedFilterOf(filter, now);
    if (!feedFilter) return c.json({ data: [], hasMore: false, filter }, 200);
    const page = await scope(c).service.feed.list(feedFilter, limit, after, offset);
    return c.json({ data: await present(c, page.data, now), hasMore: page.hasMore, filter }, 200);
  },
);

inboxNotificationRoutes.openapi(
  inboxRoute({
    method: "get",
    path: "/v1/inbox/notifications/count",
    summary: "Count the subscriber's notifications",
    description: `One exact count (never capped) per filter of \`filters\` (at most ${MAX_COUNT_FILTERS}).`,
    request: { query: InboxCountQuery },
    responses: { 200: { description: "The counts, in the order of the filters", content: json(InboxCounts) } },
  }),
  async (c) => {
    const raw = parseJsonParam(c.req.valid("query").filters, "filters");
    const list = z.array(z.unknown()).max(MAX_COUNT_FILTERS).safeParse(raw);
    if (!list.success) throw validationError(list.error.issues.map((i) => ({ ...i, path: ["filters", ...i.path] })));
    const filters = list.data.map((f, i) => parseFilter(f, ["filters", i]));
    const { feed } = scope(c).service;
    const now = new Date();
    const data = await Promise.all(
      filters.map(async (filter) => {
        const feedFilter = feedFilterOf(filter, now);
        return { count: feedFilter ? (await feed.counts(feedFilter)).total : 0, filter };
      }),
    );
    return c.json({ data }, 200);
  },
);

const missing = (id: string) => notFound("message_not_found", `notification "${id}" for this subscriber`);

/** Changes one notification of the session's subscriber and answers it; another subscriber's is a 404. */
async function changeOne(c: Context<InboxEnv>, id: string, change: InAppChange) {
  const now = new Date();
  const row = await scope(c).service.change(id, change, now);
  if (!row) throw missing(id);
  const [data] = await present(c, [row], now);
  return c.json({ data: data! }, 200);
}

const one = { 200: { description: "The notification after the change", content: json(envelope(InboxNotification)) } };

/** The bodiless state changes, as Novu names them. */
const STATE_CHANGES = {
  read: { summary: "Mark read", change: { read: true } },
  unread: { summary: "Mark unread", change: { read: false } },
  // As Novu does: archiving reads it too.
  archive: { summary: "Archive", change: { archived: true, read: true } },
  unarchive: { summary: "Unarchive", change: { archived: false } },
  unsnooze: { summary: "Unsnooze: show it again now", change: { snoozedUntil: null } },
} satisfies Record<string, { summary: string; change: InAppChange }>;

for (const [action, { summary, change }] of Object.entries(STATE_CHANGES)) {
  inboxNotificationRoutes.openapi(
    inboxRoute({
      method: "patch",
      path: `/v1/inbox/notifications/{id}/${action}`,
      summary,
      request: { params: NotificationIdParam },
      responses: one,
      errors: ["message_not_found"],
    }),
    (c) => changeOne(c, c.req.valid("param").id, change),
  );
}

inboxNotificationRoutes.openapi(
  inboxRoute({
    method: "patch",
    path: "/v1/inbox/notifications/{id}/snooze",
    summary: "Snooze",
    description: "Hidden from lists that ask for `snoozed: false` until `snoozeUntil` (at most 90 days ahead); then it is back on its own.",
    request: { params: NotificationIdParam, body: { required: true, content: json(SnoozeBody) } },
    responses: one,
    errors: ["message_not_found"],
  }),
  (c) => {
    const until = new Date(c.req.valid("json").snoozeUntil);
    const now = Date.now();
    if (until.getTime() <= now || until.getTime() > now + MAX_SNOOZE_HOURS * 3_600_000) {
      throw validationError([{ path: ["snoozeUntil"], message: "Give a moment in the future, at most 90 days ahead." }]);
    }
    return changeOne(c, c.req.valid("param").id, { snoozedUntil: until });
  },
);

for (const [action, summary] of [
  ["complete", "Complete the primary or secondary action"],
  ["revert", "Revert a completed action"],
] as const) {
  inboxNotificationRoutes.openapi(
    inboxRoute({
      method: "patch",
      path: `/v1/inbox/notifications/{id}/${action}`,
      summary,
      request: { params: NotificationIdParam, body: { required: true, content: json(ActionBody) } },
      responses: one,
      errors: ["message_not_found"],
    }),
    (c) => changeOne(c, c.req.valid("param").id, { completedAction: action === "complete" ? c.req.valid("json").actionType : null }),
  );
}

inboxNotificationRoutes.openapi(
  inboxRoute({
    method: "delete",
    path: "/v1/inbox/notifications/{id}/delete",
    summary: "Delete from the Inbox",
    description: "The notification leaves the Inbox; the message and its timeline stay in Activity.",
    request: { params: NotificationIdParam },
    responses: { 204: { description: "Deleted" } },
    errors: ["message_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if ((await scope(c).service.remove([id])).length === 0) throw missing(id);
    return c.body(null, 204);
  },
);
