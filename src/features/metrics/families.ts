// The figures of one scrape, as Prometheus families. Message, trigger and latency figures come
// from the analytics rollups of the log shards; webhook figures from D1's delivery log; queue lag
// from the trigger ledgers. Every counter counts since the start of the current UTC day.
import { FIGURE_MASKS, FIGURES } from "../../contract/message-figures";
import { MESSAGE_STATUSES, type MessageStatus } from "../../contract/statuses";
import type { AnalyticsPart } from "../../durable-objects/client/log-store";
import { LATENCY_BUCKETS_MS } from "../../durable-objects/client/latency-buckets";
import type { AttemptCount } from "./repository";
import type { Family, HistogramSeries, Sample } from "./prometheus";

/** What one environment's rollups hold for the scrape's window. */
export interface EnvironmentFigures {
  slug: string;
  rollups: AnalyticsPart;
}

/** Beyond the figures (each a set of states): the final states a message can end in without being sent. */
const UNSENT: readonly MessageStatus[] = ["skipped", "cancelled"];
const STATUS_MASKS: [string, number][] = [
  ...FIGURES.map((f): [string, number] => [f, FIGURE_MASKS[f]]),
  ...UNSENT.map((s): [string, number] => [s, 1 << MESSAGE_STATUSES.indexOf(s)]),
];

/** The code a recipients job that ran out of Queue retries leaves on the messages it failed. */
const DEAD_LETTERED = "dead_lettered";

/** Adds `n` to the sample with these labels. */
function tally(into: Map<string, Sample>, labels: Record<string, string>, n: number) {
  const key = JSON.stringify(labels);
  const seen = into.get(key);
  if (seen) seen.value += n;
  else into.set(key, { labels, value: n });
}

function triggers(envs: readonly EnvironmentFigures[]): Family {
  const samples = new Map<string, Sample>();
  for (const { slug, rollups } of envs)
    for (const r of rollups.audience ?? []) tally(samples, { environment: slug, workflow: r.workflowKey }, r.triggers);
  return {
    type: "counter",
    name: "clarion_triggers_accepted_total",
    help: "Triggers recorded by the delivery consumer since 00:00 UTC, per workflow.",
    samples: [...samples.values()],
  };
}

function messages(envs: readonly EnvironmentFigures[]): Family[] {
  const byStatus = new Map<string, Sample>();
  const dead = new Map<string, Sample>();
  for (const { slug, rollups } of envs) {
    tally(dead, { environment: slug }, 0);
    for (const r of rollups.counts ?? []) {
      const labels = { environment: slug, channel: r.channel, provider: r.provider ?? "" };
      for (const [status, mask] of STATUS_MASKS) if (r.states & mask) tally(byStatus, { ...labels, status }, r.n);
      if (r.reason === DEAD_LETTERED) tally(dead, { environment: slug }, r.n);
    }
  }
  return [
    {
      type: "counter",
      name: "clarion_messages_total",
      help: "Messages created since 00:00 UTC, counted under every status they reached (sent counts delivered, opened ... too; failed counts bounced and undeliverable).",
      samples: [...byStatus.values()],
    },
    {
      type: "counter",
      name: "clarion_dead_letters_total",
      help: "Messages created since 00:00 UTC that the dead-letter consumer failed: their recipients job ran out of Queue retries (code dead_lettered).",
      samples: [...dead.values()],
    },
  ];
}

/**
 * The rollups keep each send's latency bucket, not the latency: the sum is estimated from each
 * bucket's middle (the last, open, bucket from its lower bound).
 */
function latency(envs: readonly EnvironmentFigures[]): Family {
  const series = new Map<string, { labels: Record<string, string>; per: number[] }>();
  for (const { slug, rollups } of envs) {
    for (const r of rollups.latency ?? []) {
      const labels = { environment: slug, channel: r.channel, provider: r.provider ?? "" };
      const key = JSON.stringify(labels);
      const s = series.get(key) ?? { labels, per: Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0) };
      s.per[Math.min(r.bucket, LATENCY_BUCKETS_MS.length)]! += r.n;
      series.set(key, s);
    }
  }
  const mids = [...LATENCY_BUCKETS_MS.map((upper, i) => (upper + (LATENCY_BUCKETS_MS[i - 1] ?? 0)) / 2), LATENCY_BUCKETS_MS.at(-1)!];
  const out: HistogramSeries[] = [...series.values()].map(({ labels, per }) => {
    let running = 0;
    const counts = LATENCY_BUCKETS_MS.map((_, i) => (running += per[i]!));
    const count = per.reduce((a, b) => a + b, 0);
    const sum = per.reduce((total, n, i) => total + (n * mids[i]!) / 1000, 0);
    return { labels, counts, count, sum };
  });
  return {
    type: "histogram",
    name: "clarion_send_latency_seconds",
    help: "Send latency (attempt start to the provider's answer) of messages created since 00:00 UTC; the sum is estimated from bucket middles.",
    buckets: LATENCY_BUCKETS_MS.map((ms) => ms / 1000),
    series: out,
  };
}

function webhooks(slugs: ReadonlyMap<string, string>, attempts: readonly AttemptCount[]): Family[] {
  const outcomes = new Map<string, Sample>();
  const retries = new Map<string, Sample>();
  for (const slug of slugs.values()) tally(retries, { environment: slug, kind: "webhook" }, 0);
  for (const a of attempts) {
    const slug = slugs.get(a.environmentId);
    if (slug === undefined) continue;
    tally(outcomes, { environment: slug, outcome: a.status }, a.n);
    if (a.retry) tally(retries, { environment: slug, kind: "webhook" }, a.n);
  }
  return [
    {
      type: "counter",
      name: "clarion_webhook_deliveries_total",
      help: "Webhook delivery attempts since 00:00 UTC, by outcome (succeeded or failed).",
      samples: [...outcomes.values()],
    },
    {
      type: "counter",
      name: "clarion_retries_total",
      help: "Retries since 00:00 UTC: webhook delivery attempts after the first (message send retries are not recorded as a count).",
      samples: [...retries.values()],
    },
  ];
}

function queueLag(oldestDue: number | null, now: number): Family {
  return {
    type: "gauge",
    name: "clarion_queue_lag_seconds",
    help: "Age of the oldest trigger accepted and due that the delivery consumer has not fanned out yet; 0 when none waits.",
    samples: [{ labels: {}, value: oldestDue === null ? 0 : Math.max(0, (now - oldestDue) / 1000) }],
  };
}

/** Every family of one scrape, in a stable order. */
export function metricFamilies(input: {
  environments: readonly EnvironmentFigures[];
  slugs: ReadonlyMap<string, string>;
  attempts: readonly AttemptCount[];
  oldestDue: number | null;
  now: number;
}): Family[] {
  return [
    triggers(input.environments),
    ...messages(input.environments),
    latency(input.environments),
    ...webhooks(input.slugs, input.attempts),
    queueLag(input.oldestDue, input.now),
  ];
}
