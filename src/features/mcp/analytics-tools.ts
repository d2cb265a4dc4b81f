import { z } from "@hono/zod-openapi";
import { errorGroups } from "../analytics/error-groups";
import { fatigue } from "../analytics/fatigue";
import { overview } from "../analytics/overview";
import { providerFigures } from "../analytics/providers";
import { ErrorsQuery, ErrorsReport, FatigueQuery, FatigueReport, Overview, ProvidersReport, WorkflowsReport } from "../analytics/schemas";
import { workflowFunnels } from "../analytics/workflows";
import { defineTool } from "./tool";

const REPORTS = ["overview", "workflows", "providers", "fatigue", "errors"] as const;

/**
 * One tool for the five analytics reports (`GET /v1/analytics/<report>`), so an assistant picks
 * the question, not the endpoint; filters a report does not take are ignored by it.
 */
const getAnalytics = defineTool({
  name: "get_analytics",
  scope: "read",
  title: "Get analytics",
  description:
    "Delivery analytics over a range (at most 92 days): `overview` (totals, rates and a series against the period before), `workflows` (each workflow's funnel), `providers` (sends, failures, latency per provider), `fatigue` (subscribers messaged most, opt-outs by volume), `errors` (failures grouped by reason).",
  input: ErrorsQuery.extend({
    report: z.enum(REPORTS).describe("Which report."),
    top: FatigueQuery.shape.top,
  }),
  output: z.object({
    report: z.enum(REPORTS),
    overview: Overview.optional(),
    workflows: WorkflowsReport.optional(),
    providers: ProvidersReport.optional(),
    fatigue: FatigueReport.optional(),
    errors: ErrorsReport.optional(),
  }),
  async run({ report, top, provider, ...query }, { caller }) {
    const { data } = caller;
    switch (report) {
      case "overview":
        return { report, overview: await overview(data, query) };
      case "workflows":
        return { report, workflows: await workflowFunnels(data, query) };
      case "providers":
        return { report, providers: await providerFigures(data, { ...query, provider }) };
      case "fatigue":
        return { report, fatigue: await fatigue(data, { ...query, top }) };
      case "errors":
        return { report, errors: await errorGroups(data, { ...query, provider }) };
    }
  },
});

export const analyticsTools = [getAnalytics];
