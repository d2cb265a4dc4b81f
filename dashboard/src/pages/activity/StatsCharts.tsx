import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type uPlot from "uplot";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { type Filters, isRange, RANGES } from "./filters";
import { LIVE_INTERVAL, LiveIndicator } from "./live";
import { statsQuery } from "./queries";
import { UPlotChart } from "./UPlotChart";
import { Radio } from "../../ui/Input";
import { Table } from "../../ui/Table";
import { Card } from "../../ui/Card";

type Row = components["schemas"]["MessageStatsRow"];
type GroupBy = "channel" | "provider";
// Each message counts under every state it reached: an archived in-app message is also sent and delivered.
const METRICS = [
  { key: "sent", color: "#3b5bdb" },
  { key: "delivered", color: "#2b8a3e" },
  { key: "opened", color: "#ae3ec9" },
  { key: "clicked", color: "#862e9c" },
  { key: "seen", color: "#1098ad" },
  { key: "read", color: "#0b7285" },
  { key: "archived", color: "#868e96" },
  { key: "failed", color: "#c92a2a" },
] as const;
type Metric = (typeof METRICS)[number]["key"];

/** Buckets from `since` to `until` with zeros where no message was created, one series per metric. */
function seriesOf(rows: Row[], since: number, until: number, size: number): uPlot.AlignedData {
  const start = Math.floor(since / size) * size;
  const xs: number[] = [];
  for (let t = start; t < until; t += size) xs.push(t);
  const index = new Map(xs.map((t, i) => [t, i]));
  const ys = METRICS.map(() => xs.map(() => 0));
  for (const r of rows) {
    const i = index.get(Date.parse(r.at));
    if (i === undefined) continue;
    METRICS.forEach((m, j) => {
      ys[j]![i] = r[m.key];
    });
  }
  return [xs.map((t) => t / 1000), ...ys];
}

/** A line per metric; those that stay at zero for the group (opens of in-app, reads of email) start hidden. */
const chartOptions = (title: string, totals: Record<Metric, number>): Omit<uPlot.Options, "width"> => ({
  title,
  height: 180,
  series: [{}, ...METRICS.map((m) => ({ label: m.key, stroke: m.color, width: 2, points: { show: false }, show: totals[m.key] > 0 }))],
  // Counts are whole: no 0.5 on the axis.
  axes: [{}, { size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 100_000, 1_000_000] }],
  scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
});

/** Messages by the states they reached over the chosen range: one small chart per channel or provider. */
export function StatsCharts({ filters, update }: { filters: Filters; update: (f: Filters) => void }) {
  const groupBy: GroupBy = filters.groupBy === "provider" ? "provider" : "channel";
  const range = filters.range;
  const span = isRange(range) ? RANGES[range] : RANGES["24h"];
  const bucket = span > RANGES["7d"] ? "day" : "hour";
  const api = useApi();
  const stats = useQuery({
    ...statsQuery(api, span, bucket, groupBy, filters.tenant || undefined),
    refetchInterval: LIVE_INTERVAL * 5,
  });
  const groups = useMemo(() => {
    const data = stats.data;
    if (!data) return [];
    const size = data.bucket === "day" ? 86_400_000 : 3_600_000;
    const names = [...new Set(data.data.map((r) => r.group ?? "none"))];
    return names.map((name) => {
      const rows = data.data.filter((r) => (r.group ?? "none") === name);
      const totals = Object.fromEntries(METRICS.map((m) => [m.key, rows.reduce((n, r) => n + r[m.key], 0)])) as Record<Metric, number>;
      return {
        name,
        totals,
        data: seriesOf(rows, Date.parse(data.since), Date.parse(data.until), size),
        options: chartOptions(name, totals),
      };
    });
  }, [stats.data]);

  return (
    <section aria-label="Charts">
      <div className="activity-bar">
        <fieldset className="segmented">
          <legend className="muted small">By</legend>
          {(["channel", "provider"] as const).map((g) => (
            <label key={g}>
              <Radio
                name="groupBy"
                value={g}
                checked={groupBy === g}
                onChange={() => update({ groupBy: g === "channel" ? undefined : g })}
              />{" "}
              {g}
            </label>
          ))}
        </fieldset>
        <LiveIndicator updatedAt={stats.dataUpdatedAt} failed={stats.isRefetchError} />
      </div>
      {stats.error ? <ProblemView error={stats.error} /> : null}
      {stats.isPending ? (
        <Loading what="charts" />
      ) : groups.length === 0 ? (
        <p className="empty muted">No messages in this range.</p>
      ) : (
        <>
          <Table className="stats-totals">
            <thead>
              <tr>
                <th>{groupBy}</th>
                {METRICS.map((m) => (
                  <th key={m.key}>{m.key}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.name} data-group={g.name}>
                  <td>{g.name}</td>
                  {METRICS.map((m) => (
                    <td key={m.key} data-metric={m.key}>
                      {g.totals[m.key]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </Table>
          <div className="charts">
            {groups.map((g) => (
              <Card as="div" className="chart" key={g.name} data-chart={g.name}>
                <UPlotChart options={g.options} data={g.data} label={`${g.name}: messages by the states they reached over time`} />
              </Card>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
