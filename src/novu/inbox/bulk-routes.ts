// Changes to many of one subscriber's notifications at once: "mark all read", "archive all",
// "archive read", "mark seen" and "delete all", optionally narrowed by tags and data.
import type { Context } from "hono";
import type { InAppChange, InAppFilter } from "../../db/queries/in-app";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import { json } from "../../lib/openapi";
import { inboxService } from "../../features/in-app/feed";
import { feedFilterOf, parseFilter, parseJsonParam } from "./filters";
import { type InboxEnv, inboxRoute, inboxRouter } from "./routing";
import { InboxBulkBody, InboxSeenBody } from "./schemas";

export const inboxBulkRoutes = inboxRouter();

const service = (c: Context<InboxEnv>) =>
  inboxService(c.var.data, c.get("subscriberId"), inboxSockets(c.env.INBOX_SOCKETS), c.env, {
    context: c.var.inboxContext.context,
  });

/** The notifications a bulk body names; null when none can match. */
function filterOf(body: { tags?: unknown; data?: string }): InAppFilter | null {
  const data = body.data === undefined ? undefined : parseJsonParam(body.data, "data");
  const filter = parseFilter(Object.fromEntries(Object.entries({ tags: body.tags, data }).filter(([, v]) => v !== undefined)));
  return feedFilterOf(filter, new Date());
}

const done = { 204: { description: "Done" } };

const BULK_CHANGES = {
  read: { summary: "Mark all read", change: { read: true }, narrow: {} },
  archive: { summary: "Archive all", change: { archived: true, read: true }, narrow: { archived: false } },
  "read-archive": { summary: "Archive all read", change: { archived: true }, narrow: { read: true } },
} satisfies Record<string, { summary: string; change: InAppChange; narrow: Partial<InAppFilter> }>;

for (const [action, { summary, change, narrow }] of Object.entries(BULK_CHANGES)) {
  inboxBulkRoutes.openapi(
    inboxRoute({
      method: "post",
      path: `/v1/inbox/notifications/${action}`,
      summary,
      request: { body: { required: false, content: json(InboxBulkBody) } },
      responses: done,
    }),
    async (c) => {
      const filter = filterOf(c.req.valid("json") ?? {});
      if (filter) await service(c).changeAll(change, { ...filter, ...narrow });
      return c.body(null, 204);
    },
  );
}

inboxBulkRoutes.openapi(
  inboxRoute({
    method: "post",
    path: "/v1/inbox/notifications/seen",
    summary: "Mark seen",
    description: "The notifications named by `notificationIds`, or all that `tags` and `data` match.",
    request: { body: { required: false, content: json(InboxSeenBody) } },
    responses: done,
  }),
  async (c) => {
    const body = c.req.valid("json") ?? {};
    const filter = filterOf(body);
    if (filter) await service(c).changeAll({ seen: true }, { ...filter, ...(body.notificationIds ? { ids: body.notificationIds } : {}) });
    return c.body(null, 204);
  },
);

inboxBulkRoutes.openapi(
  inboxRoute({
    method: "post",
    path: "/v1/inbox/notifications/delete",
    summary: "Delete all from the Inbox",
    description: "Every notification `tags` and `data` match leaves the Inbox; the messages stay in Activity.",
    request: { body: { required: false, content: json(InboxBulkBody) } },
    responses: done,
  }),
  async (c) => {
    const filter = filterOf(c.req.valid("json") ?? {});
    if (filter) await service(c).removeAll(filter);
    return c.body(null, 204);
  },
);
