// Numbers as a reader sees them on the Analytics page.

const integer = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 1 });

export const count = (n: number) => integer.format(n);

/** A rate (0–1) as a percentage; none when nothing could have reached it. */
export const rate = (r: number | null | undefined) => (r === null || r === undefined ? "–" : percent.format(r));

export const ms = (n: number | null | undefined) =>
  n === null || n === undefined ? "–" : n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${integer.format(n)} ms`;

/** A bucket's start in the reader's time zone: a day for daily buckets, a day and hour otherwise. */
export function bucketLabel(at: string, granularity: "hour" | "day") {
  const date = new Date(at);
  return granularity === "day"
    ? date.toLocaleDateString("en", { month: "short", day: "numeric" })
    : date.toLocaleString("en", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false });
}

/**
 * How a figure moved against the previous period, in words a screen reader reads as well:
 * "+25% vs previous", "new" when the previous period had none.
 */
export function change(current: number, previous: number): { text: string; direction: "up" | "down" | "flat" } {
  if (previous === 0) return current === 0 ? { text: "no change", direction: "flat" } : { text: "new", direction: "up" };
  const delta = (current - previous) / previous;
  if (Math.abs(delta) < 0.0005) return { text: "no change", direction: "flat" };
  return { text: `${delta > 0 ? "+" : "−"}${percent.format(Math.abs(delta))}`, direction: delta > 0 ? "up" : "down" };
}

/** Change of a rate, in percentage points. */
export function pointsChange(current: number | null | undefined, previous: number | null | undefined) {
  if (current === null || current === undefined || previous === null || previous === undefined)
    return { text: "–", direction: "flat" as const };
  const points = (current - previous) * 100;
  if (Math.abs(points) < 0.05) return { text: "no change", direction: "flat" as const };
  return {
    text: `${points > 0 ? "+" : "−"}${Math.abs(points).toFixed(1)} pt`,
    direction: points > 0 ? ("up" as const) : ("down" as const),
  };
}
