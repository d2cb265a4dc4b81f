import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import worker from "../../src/index";

export const METRICS_TOKEN = "metrics-test-token-0123456789";

/** GET /metrics from the Worker with `METRICS_TOKEN` set as given (null: unset). */
export async function getMetrics(authorization: string | undefined, token: string | null = METRICS_TOKEN) {
  const ctx = createExecutionContext();
  const headers = authorization === undefined ? undefined : { authorization };
  const res = await worker.fetch(
    new Request("http://clarion.test/metrics", { headers }),
    { ...env, METRICS_TOKEN: token ?? undefined },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * A scrape, parsed by a Prometheus text-format parser: each family by name. The parser folds a
 * histogram's labelled series into one (its flattenMetrics ignores every label but `le`), so each
 * histogram's `_bucket`, `_sum` and `_count` series are also read as series of their own.
 */
export async function scrape(): Promise<Map<string, ParsedFamily>> {
  const res = await getMetrics(`Bearer ${METRICS_TOKEN}`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  const text = await res.text();
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
  const histograms = [...families.values()].filter((f) => f.type === "HISTOGRAM").map((f) => f.name);
  const asSeries = text
    .split("\n")
    .filter((line) => !histograms.some((name) => line.startsWith(`# TYPE ${name} `) || line.startsWith(`# HELP ${name} `)))
    .join("\n");
  for (const f of parsePrometheusTextFormat(asSeries)) if (!families.has(f.name)) families.set(f.name, f);
  return families;
}

/** The sum of one family's samples whose labels include these, as a number (0 when none). */
export function sampleOf(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string>): number {
  const family = families.get(name);
  if (!family) throw new Error(`no ${name} in the scrape`);
  const found = family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found.reduce((n, m) => n + Number(m.value ?? 0), 0);
}
