import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { type ReactNode, useId } from "react";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import "./analytics.css";
import { AnalyticsFilters } from "./AnalyticsFilters";
import { ErrorGroups } from "./ErrorGroups";
import { ExportButtons } from "./ExportButtons";
import { FatigueReport } from "./FatigueReport";
import { type Filters, useAnalyticsFilters } from "./filters";
import { type CardFigure, OverviewCards } from "./OverviewCards";
import { ProvidersChart } from "./ProvidersChart";
import { errorsQuery, fatigueQuery, overviewQuery, providersQuery, type Report, workflowsQuery } from "./queries";
import { SeriesChart } from "./SeriesChart";
import { WorkflowFunnels } from "./WorkflowFunnels";

type Overview = components["schemas"]["AnalyticsOverview"];

/** A report's region: its heading, its exports, and its content once the answer is there. */
function ReportSection<T>({
  report,
  title,
  filters,
  query,
  children,
}: {
  report: Report;
  title: string;
  filters: Filters;
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  const id = useId();
  return (
    <section className="analytics-section" aria-labelledby={id} data-report={report} aria-busy={query.isFetching || undefined}>
      <div className="page-header">
        <h2 id={id}>{title}</h2>
        <ExportButtons report={report} filters={filters} />
      </div>
      {query.error ? (
        <ProblemView error={query.error} />
      ) : query.data === undefined ? (
        <Loading what={title.toLowerCase()} />
      ) : (
        children(query.data)
      )}
    </section>
  );
}

/** How long a period is, in words: "24 hours", "7 days". */
function spanOf(range: { from: string; to: string }) {
  const hours = Math.round((Date.parse(range.to) - Date.parse(range.from)) / 3_600_000);
  return hours >= 48 ? `${Math.round(hours / 24)} days` : `${hours} hours`;
}

/** The cards: volumes, then rates (a rise in failures or opt-outs is bad news, in deliveries good). */
function cardFigures(overview: Overview): CardFigure[] {
  const now = overview.current;
  const before = overview.previous;
  const total = (key: keyof Overview["current"]["totals"], label: string, better?: "up" | "down"): CardFigure => ({
    key,
    label,
    kind: "count",
    value: now.totals[key],
    previous: before.totals[key],
    better,
  });
  const ratio = (key: keyof Overview["current"]["rates"], label: string, better: "up" | "down"): CardFigure => ({
    key: `${key}Rate`,
    label,
    kind: "rate",
    value: now.rates[key],
    previous: before.rates[key],
    better,
  });
  return [
    total("triggers", "Triggers"),
    total("recipients", "Recipients"),
    total("sent", "Sent"),
    total("delivered", "Delivered", "up"),
    total("failed", "Failed", "down"),
    ratio("delivery", "Delivery rate", "up"),
    ratio("open", "Open rate", "up"),
    ratio("click", "Click rate", "up"),
    ratio("read", "Read rate", "up"),
    ratio("failure", "Failure rate", "down"),
    ratio("bounce", "Bounce rate", "down"),
    ratio("optOut", "Opt-out rate", "down"),
  ];
}

/**
 * What happened to the environment's notifications over a period: totals against the period
 * before, a funnel per workflow, providers compared, how many messages subscribers get, and what
 * is failing. The view (period, filters, the step drilled into) lives in the address.
 */
export function AnalyticsPage() {
  const api = useApi();
  const { filters, update } = useAnalyticsFilters();
  const overview = useQuery(overviewQuery(api, filters));
  const workflows = useQuery(workflowsQuery(api, filters));
  const providers = useQuery(providersQuery(api, filters));
  const fatigue = useQuery(fatigueQuery(api, filters));
  const errors = useQuery(errorsQuery(api, filters));
  return (
    <>
      <PageHeader title="Analytics" />
      {/* Started afresh when the typed values change in the address (a link, Back), so the fields show them. */}
      <AnalyticsFilters key={[filters.workflow, filters.tenant, filters.from, filters.to].join("\n")} filters={filters} update={update} />
      <ReportSection report="overview" title="Overview" filters={filters} query={overview}>
        {(data) => (
          <>
            <p className="muted small">
              <time dateTime={data.range.from}>{new Date(data.range.from).toLocaleString()}</time> to{" "}
              <time dateTime={data.range.to}>{new Date(data.range.to).toLocaleString()}</time>, against the {spanOf(data.range)} before.
            </p>
            <OverviewCards figures={cardFigures(data)} />
            <SeriesChart
              points={data.data}
              figures={["sent", "delivered", "opened", "read", "failed"]}
              granularity={data.range.granularity}
            />
          </>
        )}
      </ReportSection>
      <ReportSection report="workflows" title="Workflows" filters={filters} query={workflows}>
        {(data) => (
          <WorkflowFunnels
            workflows={data.data}
            funnel={filters.funnel}
            step={filters.step}
            update={(changes) => update({ funnel: changes.funnel, step: changes.step })}
          />
        )}
      </ReportSection>
      <ReportSection report="providers" title="Providers" filters={filters} query={providers}>
        {(data) => <ProvidersChart providers={data.data} />}
      </ReportSection>
      <ReportSection report="fatigue" title="Fatigue" filters={filters} query={fatigue}>
        {(data) => <FatigueReport fatigue={data} />}
      </ReportSection>
      <ReportSection report="errors" title="Errors" filters={filters} query={errors}>
        {(data) => <ErrorGroups errors={data.data} />}
      </ReportSection>
    </>
  );
}
