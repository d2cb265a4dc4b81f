import type { ActivityRow } from "../../db/queries/subscriber-activity";
import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { keysetPage } from "../../lib/pagination";
import { ActivityQuery, activityCursor, type SubscriberActivity, SubscriberActivityPage } from "./activity-schemas";
import { SubscriberIdParam } from "./preferences-schemas";

export const activityRoutes = createRouter();

const toEntry = (row: ActivityRow): SubscriberActivity => ({
  id: row.id,
  type: row.type,
  reason: row.reason,
  channel: row.channel,
  preferences: row.preferences === null ? null : JSON.parse(row.preferences),
  createdAt: new Date(row.created_at).toISOString(),
});

activityRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/activity",
    tags: ["Subscribers"],
    summary: "List a subscriber's activity",
    description:
      "The subscriber's timeline, newest first: profile writes, preference changes with who made them (`one_click`, `preference_page`, `api`, `inbox`) and the suppressions of their addresses. Erasure deletes it.",
    security,
    request: { params: SubscriberIdParam, query: ActivityQuery },
    responses: { 200: { description: "A page of the timeline", content: json(SubscriberActivityPage) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const after = activityCursor.read(cursor);
    if ((await c.var.data.preferences.find(subscriberId)) === undefined) {
      throw notFound("subscriber_not_found", `subscriber "${subscriberId}"`);
    }
    const rows = await c.var.data.activity(subscriberId, after ? { createdAt: after[0], id: after[1] } : null, limit);
    const page = keysetPage(rows, limit, (last) => activityCursor.encode([last.created_at, last.id]));
    return c.json({ data: page.rows.map(toEntry), nextCursor: page.nextCursor }, 200);
  },
);
