import { Link } from "react-router";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { components } from "../../api/openapi";
import { Table } from "../../ui/Table";
import { ChartFigure } from "./ChartFigure";
import { count } from "./format";
import { COLORS, TOOLTIP_STYLE } from "./palette";

type Fatigue = components["schemas"]["AnalyticsFatigue"];

const volume = (min: number, max: number | null) => (max === null ? `${min} or more` : min === max ? `${min}` : `${min}–${max}`);

/** How many messages a subscriber gets in a day: the histogram, who gets the most, and who opted out after a busy day. */
export function FatigueReport({ fatigue }: { fatigue: Fatigue }) {
  const distribution = fatigue.data.map((d) => ({ ...d, label: String(d.messages) }));
  return (
    <>
      <p className="small">
        {count(fatigue.subscriberDays)} subscriber-days · median {fatigue.p50PerDay ?? "–"} · 95th percentile {fatigue.p95PerDay ?? "–"} ·
        most {fatigue.maxPerDay ?? "–"} messages in a day
      </p>
      <div className="analytics-grid">
        <ChartFigure
          testId="fatigue"
          title="Messages per subscriber per day"
          description="how many subscriber-days had each number of messages"
          chart={
            distribution.length === 0 ? (
              <p className="muted small">No messages in this period.</p>
            ) : (
              <ResponsiveContainer width="100%" height={200}>
                <BarChart accessibilityLayer={false} data={distribution} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
                  <CartesianGrid strokeDasharray="3 3" stroke="var(--color-line)" />
                  <XAxis dataKey="label" tick={{ fontSize: 11 }} />
                  <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
                  <Tooltip {...TOOLTIP_STYLE} />
                  <Bar dataKey="subscriberDays" name="subscriber-days" fill={COLORS.sent} isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            )
          }
          table={
            <Table>
              <caption className="visually-hidden">Subscriber-days by messages received</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Messages in a day
                  </th>
                  <th scope="col" className="num">
                    Subscriber-days
                  </th>
                </tr>
              </thead>
              <tbody>
                {distribution.map((d) => (
                  <tr key={d.messages} data-messages={d.messages}>
                    <th scope="row" className="num">
                      {d.messages}
                    </th>
                    <td className="num">{count(d.subscriberDays)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          }
        />
        <ChartFigure
          testId="opt-outs"
          title="Opt-outs after high-volume days"
          description="by the messages the subscriber got that day and the day before"
          chart={
            fatigue.optOutsAfterVolume.length === 0 ? (
              <p className="muted small">No opt-outs in this period.</p>
            ) : (
              <ResponsiveContainer width="100%" height={200}>
                <BarChart
                  accessibilityLayer={false}
                  data={fatigue.optOutsAfterVolume.map((o) => ({ ...o, label: volume(o.min, o.max) }))}
                  margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
                >
                  <CartesianGrid strokeDasharray="3 3" stroke="var(--color-line)" />
                  <XAxis dataKey="label" tick={{ fontSize: 11 }} />
                  <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
                  <Tooltip {...TOOLTIP_STYLE} />
                  <Bar dataKey="optOuts" name="opt-outs" fill={COLORS.failed} isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            )
          }
          table={
            <Table>
              <caption className="visually-hidden">Opt-outs by messages received that day and the day before</caption>
              <thead>
                <tr>
                  <th scope="col">Messages (that day and the day before)</th>
                  <th scope="col" className="num">
                    Opt-outs
                  </th>
                </tr>
              </thead>
              <tbody>
                {fatigue.optOutsAfterVolume.map((o) => (
                  <tr key={o.min}>
                    <th scope="row">{volume(o.min, o.max)}</th>
                    <td className="num">{count(o.optOuts)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          }
        />
      </div>
      <h3>Top subscribers</h3>
      {fatigue.top.length === 0 ? (
        <p className="muted small">No messages in this period.</p>
      ) : (
        <Table className="stack" aria-label="Subscribers with the most messages">
          <thead>
            <tr>
              <th scope="col">Subscriber</th>
              <th scope="col" className="num">
                Messages
              </th>
              <th scope="col" className="num">
                Days
              </th>
              <th scope="col" className="num">
                Most in a day
              </th>
            </tr>
          </thead>
          <tbody>
            {fatigue.top.map((s, i) => (
              <tr key={s.subscriberId ?? `erased-${i}`} data-subscriber={s.subscriberId ?? ""}>
                <td data-label="Subscriber" className="wrap">
                  {s.subscriberId ? (
                    <Link to={`/subscribers/${encodeURIComponent(s.subscriberId)}`}>{s.subscriberId}</Link>
                  ) : (
                    <span className="muted">erased subscriber</span>
                  )}
                </td>
                <td data-label="Messages" className="num">
                  {count(s.messages)}
                </td>
                <td data-label="Days" className="num">
                  {count(s.days)}
                </td>
                <td data-label="Most in a day" className="num">
                  {count(s.maxPerDay)}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
