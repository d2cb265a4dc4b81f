import type { AnalyticsQuery, AudienceRow, CountRow, DayVolume, ErrorGroupRow, FatigueSummary, LatencyRow } from "./rows";
import { DAY_MS } from "./rows";

/** The WHERE of a read: the environment, the range on the table's time column, and each dimension asked for. */
function filter(q: AnalyticsQuery, environmentId: string, time: "hour" | "day", dims: ("tenant" | "workflow" | "channel" | "provider")[]) {
  const where = ["env = ?", `${time} >= ?`, `${time} < ?`];
  // A day row holds the whole day: one that starts before `since` is in when the range starts within it.
  const since = time === "day" ? Math.floor(q.since / DAY_MS) * DAY_MS : q.since;
  const values: SqlStorageValue[] = [environmentId, since, q.until];
  const wanted = { tenant: q.tenantId, workflow: q.workflowKey, channel: q.channel, provider: q.provider };
  for (const d of dims) {
    const value = wanted[d];
    if (value === undefined) continue;
    where.push(`${d} = ?`);
    values.push(value);
  }
  return { where: where.join(" AND "), values };
}

const orNull = (v: string) => (v === "" ? null : v);

export function readCounts(sql: SqlStorage, environmentId: string, q: AnalyticsQuery): CountRow[] {
  const { where, values } = filter(q, environmentId, "hour", ["tenant", "workflow", "channel", "provider"]);
  return sql
    .exec<{
      at: number;
      workflow: string;
      step: string;
      channel: string;
      provider: string;
      tenant: string;
      states: number;
      reason: string;
      n: number;
    }>(
      `SELECT CAST(hour / ?1 AS INTEGER) * ?1 AS at, workflow, step, channel, provider, tenant, states, reason, sum(n) AS n
       FROM rollup_messages WHERE ${where} GROUP BY at, workflow, step, channel, provider, tenant, states, reason`,
      q.bucketMs,
      ...values,
    )
    .toArray()
    .map((r) => ({
      at: r.at,
      workflowKey: r.workflow,
      stepId: r.step,
      channel: r.channel,
      provider: orNull(r.provider),
      tenantId: orNull(r.tenant),
      states: r.states,
      reason: orNull(r.reason),
      n: r.n,
    }));
}

export function readLatency(sql: SqlStorage, environmentId: string, q: AnalyticsQuery): LatencyRow[] {
  const { where, values } = filter(q, environmentId, "hour", ["tenant", "workflow", "channel", "provider"]);
  return sql
    .exec<{ at: number; channel: string; provider: string; bucket: number; n: number }>(
      `SELECT CAST(hour / ?1 AS INTEGER) * ?1 AS at, channel, provider, bucket, sum(n) AS n
       FROM rollup_latency WHERE ${where} GROUP BY at, channel, provider, bucket`,
      q.bucketMs,
      ...values,
    )
    .toArray()
    .map((r) => ({ at: r.at, channel: r.channel, provider: orNull(r.provider), bucket: r.bucket, n: r.n }));
}

export function readAudience(sql: SqlStorage, environmentId: string, q: AnalyticsQuery): AudienceRow[] {
  const { where, values } = filter(q, environmentId, "hour", ["tenant", "workflow"]);
  return sql
    .exec<{ at: number; workflow: string; tenant: string; triggers: number; recipients: number }>(
      `SELECT CAST(hour / ?1 AS INTEGER) * ?1 AS at, workflow, tenant, sum(triggers) AS triggers, sum(recipients) AS recipients
       FROM rollup_audience WHERE ${where} GROUP BY at, workflow, tenant`,
      q.bucketMs,
      ...values,
    )
    .toArray()
    .map((r) => ({ at: r.at, workflowKey: r.workflow, tenantId: orNull(r.tenant), triggers: r.triggers, recipients: r.recipients }));
}

export function readErrors(sql: SqlStorage, environmentId: string, q: AnalyticsQuery): ErrorGroupRow[] {
  const { where, values } = filter(q, environmentId, "day", ["tenant", "workflow", "channel", "provider"]);
  return sql
    .exec<{
      provider: string;
      channel: string;
      code: string;
      message: string;
      n: number;
      first_at: number;
      last_at: number;
      example: string;
    }>(
      `SELECT provider, channel, code, message, sum(n) AS n, min(first_at) AS first_at, max(last_at) AS last_at, max(example) AS example
       FROM rollup_errors WHERE ${where} GROUP BY provider, channel, code, message`,
      ...values,
    )
    .toArray()
    .map((r) => ({
      provider: orNull(r.provider),
      channel: r.channel,
      code: r.code,
      message: r.message,
      n: r.n,
      firstAt: r.first_at,
      lastAt: r.last_at,
      exampleMessageId: r.example,
    }));
}

/** Per (subscriber, day) totals in the range, then their distribution and the top `top` subscribers. */
export function readFatigue(sql: SqlStorage, environmentId: string, q: AnalyticsQuery, top: number): FatigueSummary {
  const { where, values } = filter(q, environmentId, "day", ["tenant", "workflow", "channel"]);
  const perDay = `SELECT subscriber, day, sum(n) AS total FROM rollup_fatigue WHERE ${where} GROUP BY subscriber, day`;
  const distribution = sql
    .exec<{ messages: number; subscriberDays: number }>(
      `SELECT total AS messages, count(*) AS subscriberDays FROM (${perDay}) GROUP BY total ORDER BY total`,
      ...values,
    )
    .toArray()
    .map((r) => ({ messages: r.messages, subscriberDays: r.subscriberDays }));
  const leaders = sql
    .exec<{ subscriber: string; messages: number; days: number; maxPerDay: number }>(
      `SELECT subscriber, sum(total) AS messages, count(*) AS days, max(total) AS maxPerDay FROM (${perDay})
       GROUP BY subscriber ORDER BY messages DESC, subscriber LIMIT ?`,
      ...values,
      top,
    )
    .toArray()
    .map((r) => ({ subscriberId: r.subscriber, messages: r.messages, days: r.days, maxPerDay: r.maxPerDay }));
  return { distribution, top: leaders };
}

/** Each subscriber's messages on each given day (start of the UTC day), all channels and workflows. */
export function readDayVolumes(sql: SqlStorage, environmentId: string, pairs: { subscriberId: string; day: number }[]): DayVolume[] {
  return pairs.map(({ subscriberId, day }) => {
    const [row] = sql
      .exec<{ n: number | null }>(
        "SELECT sum(n) AS n FROM rollup_fatigue WHERE env = ? AND subscriber = ? AND day = ?",
        environmentId,
        subscriberId,
        day,
      )
      .toArray();
    return { subscriberId, day, messages: row?.n ?? 0 };
  });
}
