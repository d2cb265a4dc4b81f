// The Prometheus text exposition format (version 0.0.4), written by hand: a few families of
// counters, gauges and histograms need no client library.

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels: Labels;
  value: number;
}

/** A histogram's series: `counts[i]` observations at most `buckets[i]` (cumulative), then all of them. */
export interface HistogramSeries {
  labels: Labels;
  counts: readonly number[];
  count: number;
  sum: number;
}

export type Family =
  | { type: "counter" | "gauge"; name: string; help: string; samples: readonly Sample[] }
  | { type: "histogram"; name: string; help: string; buckets: readonly number[]; series: readonly HistogramSeries[] };

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeValue = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeValue(v)}"`);
  return pairs.length ? `{${pairs.join(",")}}` : "";
}

const number = (value: number) =>
  Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value);

function histogramLines(name: string, buckets: readonly number[], s: HistogramSeries): string[] {
  return [
    ...buckets.map((le, i) => `${name}_bucket${labelText({ ...s.labels, le: String(le) })} ${number(s.counts[i] ?? 0)}`),
    `${name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${number(s.count)}`,
    `${name}_sum${labelText(s.labels)} ${number(s.sum)}`,
    `${name}_count${labelText(s.labels)} ${number(s.count)}`,
  ];
}

/** The families as one scrape's body: HELP and TYPE before each family's samples. */
export function exposition(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === "histogram") for (const s of family.series) lines.push(...histogramLines(family.name, family.buckets, s));
    else for (const s of family.samples) lines.push(`${family.name}${labelText(s.labels)} ${number(s.value)}`);
  }
  return `${lines.join("\n")}\n`;
}
