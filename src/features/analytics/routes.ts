import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { apiRoute, createRouter, security } from "../../lib/openapi";
import { errorGroups } from "./error-groups";
import { exportResponse, exportTypeOf, type FlatRow, withExports } from "./export";
import { errorRows, fatigueRows, overviewRows, providerRows, workflowRows } from "./export-rows";
import { fatigue } from "./fatigue";
import { overview } from "./overview";
import { providerFigures } from "./providers";
import {
  ErrorsQuery,
  ErrorsReport,
  FatigueQuery,
  FatigueReport,
  Overview,
  OverviewQuery,
  ProvidersQuery,
  ProvidersReport,
  WorkflowsQuery,
  WorkflowsReport,
} from "./schemas";
import { workflowFunnels } from "./workflows";

export const analyticsRoutes = createRouter();

const EXPORTS =
  "Send `Accept: text/csv` or `Accept: application/x-ndjson` for an export of the main list (`data`), one row per item, nested fields as dotted columns.";

/** The report as JSON, or its main list exported when the `Accept` header asks for one. */
function answer<T extends object>(c: Context<AppEnv>, report: T, rows: (r: T) => FlatRow[], name: string) {
  const type = exportTypeOf(c.req.header("accept"));
  if (type) return exportResponse(type, rows(report), name);
  c.header("vary", "Accept");
  return c.json(report, 200);
}

analyticsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/analytics/overview",
    tags: ["Analytics"],
    summary: "Totals and rates of a range, against the period before, with a series per bucket",
    description: `Counts messages by when they were created, each under every state it reached. ${EXPORTS}`,
    security,
    request: { query: OverviewQuery },
    responses: { 200: { description: "The overview", content: withExports(Overview, "one row per bucket of `data`") } },
    errors: ["range_too_long"],
  }),
  async (c) => answer(c, await overview(c.var.data, c.req.valid("query")), overviewRows, "overview"),
);

analyticsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/analytics/workflows",
    tags: ["Analytics"],
    summary: "Per workflow: triggers, recipients and a funnel per step",
    description: `Steps in the workflow's current order, then steps it no longer has. ${EXPORTS} The export has one row per step, with its workflow's figures.`,
    security,
    request: { query: WorkflowsQuery },
    responses: {
      200: { description: "Workflows and their funnels", content: withExports(WorkflowsReport, "one row per step of each workflow") },
    },
    errors: ["range_too_long"],
  }),
  async (c) => answer(c, await workflowFunnels(c.var.data, c.req.valid("query")), workflowRows, "workflows"),
);

analyticsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/analytics/providers",
    tags: ["Analytics"],
    summary: "Providers compared: volume, delivery and bounce rates, send latency, failures",
    description: `Latency percentiles are upper bounds: the bound of the histogram bucket they fall in. ${EXPORTS}`,
    security,
    request: { query: ProvidersQuery },
    responses: {
      200: { description: "Per channel and provider", content: withExports(ProvidersReport, "one row per (channel, provider)") },
    },
    errors: ["range_too_long"],
  }),
  async (c) => answer(c, await providerFigures(c.var.data, c.req.valid("query")), providerRows, "providers"),
);

analyticsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/analytics/fatigue",
    tags: ["Analytics"],
    summary: "Messages per subscriber per day: distribution, top subscribers, opt-outs after high-volume days",
    description: `Counted per UTC day (the range is aligned to days), messages counted when sent. ${EXPORTS}`,
    security,
    request: { query: FatigueQuery },
    responses: {
      200: { description: "Fatigue", content: withExports(FatigueReport, "one row per number of messages a day (the distribution)") },
    },
    errors: ["range_too_long"],
  }),
  async (c) => answer(c, await fatigue(c.var.data, c.req.valid("query")), fatigueRows, "fatigue"),
);

analyticsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/analytics/errors",
    tags: ["Analytics"],
    summary: "Failures grouped by provider, code and message, with count, first and last seen and an example",
    description: `Grouped per UTC day of the messages' creation (the range is aligned to days). ${EXPORTS}`,
    security,
    request: { query: ErrorsQuery },
    responses: { 200: { description: "Error groups", content: withExports(ErrorsReport, "one row per group") } },
    errors: ["range_too_long"],
  }),
  async (c) => answer(c, await errorGroups(c.var.data, c.req.valid("query")), errorRows, "errors"),
);
