import { useQueryFilters } from "../../ui/use-query-filters";

/** The Analytics page's view, kept in the address so a link reproduces it. */
export const FILTER_KEYS = ["range", "from", "to", "workflow", "channel", "tenant", "granularity", "funnel", "step"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Ranges offered, as time back from the end of the current hour; `custom` takes `from` and `to` (UTC days, inclusive). */
export const RANGES = { "24h": DAY, "7d": 7 * DAY, "30d": 30 * DAY, "90d": 90 * DAY } as const;
export type Range = keyof typeof RANGES | "custom";
export const RANGE_LABELS: Record<Range, string> = {
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
  "30d": "Last 30 days",
  "90d": "Last 90 days",
  custom: "Custom dates",
};
export const DEFAULT_RANGE = "7d";
export const CHANNELS = ["email", "sms", "push", "chat", "in_app"] as const;
export type Channel = (typeof CHANNELS)[number];
export type Granularity = "hour" | "day";

const isDay = (value: string | undefined): value is string => value !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(value);

export function rangeOf(filters: Filters): Range {
  const range = filters.range;
  if (range === "custom") return "custom";
  return range !== undefined && range in RANGES ? (range as Range) : DEFAULT_RANGE;
}

/**
 * The period asked for, as ISO instants. A preset ends at the end of the current hour, so the
 * same view asks the same question until the hour turns (one cache entry, not one per render).
 */
export function periodOf(filters: Filters, now = Date.now()): { from: string; to: string } {
  const range = rangeOf(filters);
  if (range === "custom" && isDay(filters.from) && isDay(filters.to)) {
    return { from: `${filters.from}T00:00:00.000Z`, to: new Date(Date.parse(`${filters.to}T00:00:00.000Z`) + DAY).toISOString() };
  }
  const span = RANGES[range === "custom" ? DEFAULT_RANGE : range];
  const to = Math.ceil(now / HOUR) * HOUR;
  return { from: new Date(to - span).toISOString(), to: new Date(to).toISOString() };
}

/** Hours for a short range, days beyond a week, unless the address says which. */
export function granularityOf(filters: Filters): Granularity {
  if (filters.granularity === "hour" || filters.granularity === "day") return filters.granularity;
  const { from, to } = periodOf(filters);
  return Date.parse(to) - Date.parse(from) > RANGES["7d"] ? "day" : "hour";
}

export const channelOf = (filters: Filters): Channel | undefined => CHANNELS.find((c) => c === filters.channel);
export const text = (value: string | undefined) => value?.trim() || undefined;

export function useAnalyticsFilters() {
  const { filters, update } = useQueryFilters(FILTER_KEYS);
  return { filters, update: (changes: Filters) => update(changes) };
}
