import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { components } from "../../api/openapi";
import { Table } from "../../ui/Table";
import { typeLabel } from "../../ui/labels";
import { ChartFigure } from "./ChartFigure";
import { count, ms, rate } from "./format";
import { COLORS, TOOLTIP_STYLE } from "./palette";

type Provider = components["schemas"]["AnalyticsProvider"];

const nameOf = (p: Provider) => `${p.provider ?? "no provider"} (${typeLabel(p.channel)})`;

/** Providers side by side: volume and outcomes as bars, rates and latency in the table. */
export function ProvidersChart({ providers }: { providers: Provider[] }) {
  if (providers.length === 0) return <p className="empty muted">No messages in this period.</p>;
  const rows = providers.map((p) => ({ ...p, name: nameOf(p) }));
  return (
    <ChartFigure
      testId="providers"
      title="Providers compared"
      description="messages sent, delivered, bounced and failed; the table adds rates and send latency"
      chart={
        <ResponsiveContainer width="100%" height={Math.max(160, 56 * rows.length + 40)}>
          <BarChart accessibilityLayer={false} data={rows} layout="vertical" margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="var(--color-line)" />
            <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
            <YAxis type="category" dataKey="name" width={110} tick={{ fontSize: 11 }} />
            <Tooltip {...TOOLTIP_STYLE} />
            <Legend itemSorter={null} wrapperStyle={{ fontSize: 12 }} />
            {(["sent", "delivered", "bounced", "failed"] as const).map((f) => (
              <Bar key={f} dataKey={f} fill={COLORS[f]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      }
      table={
        <Table>
          <caption className="visually-hidden">Providers compared</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col" className="num">
                Messages
              </th>
              <th scope="col" className="num">
                Sent
              </th>
              <th scope="col" className="num">
                Delivery rate
              </th>
              <th scope="col" className="num">
                Bounce rate
              </th>
              <th scope="col" className="num">
                Failed
              </th>
              <th scope="col" className="num" title="An upper bound: the top of the latency bucket holding the median">
                p50 latency
              </th>
              <th scope="col" className="num" title="An upper bound: the top of the latency bucket holding the 95th percentile">
                p95 latency
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={`${p.channel}:${p.provider}`} data-provider={p.provider ?? ""} data-channel={p.channel}>
                <th scope="row">{p.name}</th>
                <td className="num" data-figure="messages">
                  {count(p.messages)}
                </td>
                <td className="num" data-figure="sent">
                  {count(p.sent)}
                </td>
                <td className="num" data-figure="deliveryRate">
                  {rate(p.deliveryRate)}
                </td>
                <td className="num" data-figure="bounceRate">
                  {rate(p.bounceRate)}
                </td>
                <td className="num" data-figure="failed">
                  {count(p.failed)}
                </td>
                <td className="num" data-figure="p50">
                  {p.latencyP50Ms === null ? "–" : `≤ ${ms(p.latencyP50Ms)}`}
                </td>
                <td className="num" data-figure="p95">
                  {p.latencyP95Ms === null ? "–" : `≤ ${ms(p.latencyP95Ms)}`}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      }
    />
  );
}
