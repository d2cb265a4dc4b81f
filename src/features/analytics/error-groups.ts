import type { z } from "@hono/zod-openapi";
import type { Data } from "../data";
import { rangeOf, rangeView, rollupQuery } from "./range";
import type { ErrorsQuery, ErrorsReport } from "./schemas";

/** Failed messages of the range grouped by provider, code and (masked) error text, most first. */
export async function errorGroups(data: Data, q: z.infer<typeof ErrorsQuery>): Promise<ErrorsReport> {
  // Error groups are kept per UTC day: the range is whole days whatever the granularity.
  const range = rangeOf({ ...q, granularity: "day" });
  const part = await data.analytics.rollups(rollupQuery(range, q), ["errors"]);
  const groups = (part.errors ?? []).map((e) => ({
    provider: e.provider,
    channel: e.channel,
    code: e.code,
    message: e.message,
    count: e.n,
    firstSeen: new Date(e.firstAt).toISOString(),
    lastSeen: new Date(e.lastAt).toISOString(),
    exampleMessageId: e.exampleMessageId,
  }));
  groups.sort((a, b) => b.count - a.count || (a.lastSeen < b.lastSeen ? 1 : -1));
  return { range: rangeView(range), data: groups };
}
