import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { Table } from "../../ui/Table";
import { ChartFigure } from "./ChartFigure";
import { bucketLabel, count } from "./format";
import { COLORS, TOOLTIP_STYLE } from "./palette";

export interface SeriesPoint {
  at: string;
  [figure: string]: number | string | null;
}

/** Figures per bucket over the period: a line each, and the same numbers as a table. */
export function SeriesChart({
  points,
  figures,
  granularity,
}: {
  points: SeriesPoint[];
  figures: readonly (keyof typeof COLORS)[];
  granularity: "hour" | "day";
}) {
  const rows: (SeriesPoint & { label: string })[] = points.map((p) => ({ ...p, label: bucketLabel(p.at, granularity) }));
  return (
    <ChartFigure
      testId="series"
      title="Messages over time"
      description={`per ${granularity}, by the states they reached`}
      chart={
        <ResponsiveContainer width="100%" height={220}>
          <LineChart accessibilityLayer={false} data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--color-line)" />
            <XAxis dataKey="label" tick={{ fontSize: 11 }} minTickGap={24} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
            <Tooltip {...TOOLTIP_STYLE} />
            <Legend itemSorter={null} wrapperStyle={{ fontSize: 12 }} />
            {figures.map((f) => (
              <Line key={f} type="monotone" dataKey={f} stroke={COLORS[f]} strokeWidth={2} dot={false} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      }
      table={
        <Table>
          <caption className="visually-hidden">Messages per {granularity}</caption>
          <thead>
            <tr>
              <th scope="col">{granularity === "day" ? "Day" : "Hour"}</th>
              {figures.map((f) => (
                <th key={f} scope="col" className="num">
                  {f}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.at}>
                <th scope="row">{r.label}</th>
                {figures.map((f) => (
                  <td key={f} className="num" data-figure={f}>
                    {count(Number(r[f] ?? 0))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </Table>
      }
    />
  );
}
