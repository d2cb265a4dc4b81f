// The Analytics page's reads: one per report, all narrowed by the same filters from the address.
import { queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { channelOf, type Filters, granularityOf, periodOf, text } from "./filters";

export const ANALYTICS = ["analytics"] as const;

/**
 * The JSON answer of a report. Its type also admits the CSV and NDJSON exports (the same
 * address, another `Accept`), which these reads never ask for.
 */
async function json<T>(answer: Promise<T>): Promise<Exclude<T, string>> {
  const data = await answer;
  if (typeof data === "string") throw new Error("The analytics API answered with an export where JSON was asked for.");
  return data as Exclude<T, string>;
}

/** The query every report takes: the period, its buckets, and the workflow, channel and tenant chosen. */
export function reportQuery(filters: Filters) {
  return {
    ...periodOf(filters),
    granularity: granularityOf(filters),
    workflow: text(filters.workflow),
    channel: channelOf(filters),
    tenant: text(filters.tenant),
  };
}

export const REPORTS = {
  overview: "/v1/analytics/overview",
  workflows: "/v1/analytics/workflows",
  providers: "/v1/analytics/providers",
  fatigue: "/v1/analytics/fatigue",
  errors: "/v1/analytics/errors",
} as const;
export type Report = keyof typeof REPORTS;

export const overviewQuery = (api: Api, filters: Filters) => {
  const query = reportQuery(filters);
  return queryOptions({
    queryKey: [...ANALYTICS, "overview", query],
    queryFn: () => json(unwrap(api.GET(REPORTS.overview, { params: { query } }))),
  });
};

export const workflowsQuery = (api: Api, filters: Filters) => {
  const query = reportQuery(filters);
  return queryOptions({
    queryKey: [...ANALYTICS, "workflows", query],
    queryFn: () => json(unwrap(api.GET(REPORTS.workflows, { params: { query } }))),
  });
};

export const providersQuery = (api: Api, filters: Filters) => {
  const query = reportQuery(filters);
  return queryOptions({
    queryKey: [...ANALYTICS, "providers", query],
    queryFn: () => json(unwrap(api.GET(REPORTS.providers, { params: { query } }))),
  });
};

export const fatigueQuery = (api: Api, filters: Filters) => {
  const query = { ...reportQuery(filters), top: 10 };
  return queryOptions({
    queryKey: [...ANALYTICS, "fatigue", query],
    queryFn: () => json(unwrap(api.GET(REPORTS.fatigue, { params: { query } }))),
  });
};

export const errorsQuery = (api: Api, filters: Filters) => {
  const query = reportQuery(filters);
  return queryOptions({
    queryKey: [...ANALYTICS, "errors", query],
    queryFn: () => json(unwrap(api.GET(REPORTS.errors, { params: { query } }))),
  });
};

export const EXPORT_FORMATS = {
  csv: { accept: "text/csv", extension: "csv", label: "CSV" },
  ndjson: { accept: "application/x-ndjson", extension: "ndjson", label: "NDJSON" },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/**
 * A report as the API exports it, chosen by `Accept` (the same address as the page's JSON, so
 * the file holds exactly the figures shown).
 */
export async function exportReport(api: Api, report: Report, format: ExportFormat, filters: Filters): Promise<Blob> {
  const query = reportQuery(filters);
  const init = { params: { query }, headers: { Accept: EXPORT_FORMATS[format].accept }, parseAs: "blob" as const };
  switch (report) {
    case "overview":
      return unwrap(api.GET(REPORTS.overview, init));
    case "workflows":
      return unwrap(api.GET(REPORTS.workflows, init));
    case "providers":
      return unwrap(api.GET(REPORTS.providers, init));
    case "fatigue":
      return unwrap(api.GET(REPORTS.fatigue, init));
    case "errors":
      return unwrap(api.GET(REPORTS.errors, init));
  }
}
