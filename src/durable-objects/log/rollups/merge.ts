import type { AnalyticsPart, ErrorGroupRow, FatigueSummary } from "./rows";

/** Adds up rows that share a key: `n`-like fields summed, the rest kept from the first. */
function sumBy<T>(rows: T[], keyOf: (row: T) => string, add: (into: T, row: T) => void): T[] {
  const merged = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    const seen = merged.get(key);
    if (seen) add(seen, row);
    else merged.set(key, { ...row });
  }
  return [...merged.values()];
}

function mergeErrors(rows: ErrorGroupRow[]): ErrorGroupRow[] {
  return sumBy(
    rows,
    (r) => JSON.stringify([r.provider, r.channel, r.code, r.message]),
    (into, r) => {
      into.n += r.n;
      if (r.lastAt > into.lastAt) into.exampleMessageId = r.exampleMessageId;
      into.firstAt = Math.min(into.firstAt, r.firstAt);
      into.lastAt = Math.max(into.lastAt, r.lastAt);
    },
  );
}

/** Each subscriber's messages are in one shard, so distributions add up and the top list is the top of the tops. */
function mergeFatigue(parts: FatigueSummary[], top: number): FatigueSummary {
  const distribution = sumBy(
    parts.flatMap((p) => p.distribution),
    (d) => String(d.messages),
    (into, d) => {
      into.subscriberDays += d.subscriberDays;
    },
  ).sort((a, b) => a.messages - b.messages);
  const leaders = sumBy(
    parts.flatMap((p) => p.top),
    (t) => t.subscriberId,
    (into, t) => {
      into.messages += t.messages;
      into.days += t.days;
      into.maxPerDay = Math.max(into.maxPerDay, t.maxPerDay);
    },
  )
    .sort((a, b) => b.messages - a.messages || (a.subscriberId < b.subscriberId ? -1 : 1))
    .slice(0, top);
  return { distribution, top: leaders };
}

/** The shards' answers to one analytics read as one. */
export function mergeAnalytics(parts: AnalyticsPart[], top: number): AnalyticsPart {
  const has = (name: keyof AnalyticsPart) => parts.some((p) => p[name] !== undefined);
  const merged: AnalyticsPart = {};
  if (has("counts"))
    merged.counts = sumBy(
      parts.flatMap((p) => p.counts ?? []),
      (r) => JSON.stringify([r.at, r.workflowKey, r.stepId, r.channel, r.provider, r.tenantId, r.states, r.reason]),
      (into, r) => {
        into.n += r.n;
      },
    );
  if (has("latency"))
    merged.latency = sumBy(
      parts.flatMap((p) => p.latency ?? []),
      (r) => JSON.stringify([r.at, r.channel, r.provider, r.bucket]),
      (into, r) => {
        into.n += r.n;
      },
    );
  if (has("audience"))
    merged.audience = sumBy(
      parts.flatMap((p) => p.audience ?? []),
      (r) => JSON.stringify([r.at, r.workflowKey, r.tenantId]),
      (into, r) => {
        into.triggers += r.triggers;
        into.recipients += r.recipients;
      },
    );
  if (has("errors")) merged.errors = mergeErrors(parts.flatMap((p) => p.errors ?? []));
  if (has("fatigue"))
    merged.fatigue = mergeFatigue(
      parts.flatMap((p) => (p.fatigue ? [p.fatigue] : [])),
      top,
    );
  return merged;
}
