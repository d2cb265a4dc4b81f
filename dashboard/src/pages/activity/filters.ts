import type { paths } from "../../api/client";
import { useQueryFilters } from "../../ui/use-query-filters";

/** The filters of the Activity page, kept in the query string so a link shares them. */
export const FILTER_KEYS = [
  "workflow",
  "subscriberId",
  "transactionId",
  "channel",
  "provider",
  "tenant",
  "status",
  "range",
  "groupBy",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export const TABS = ["messages", "triggers", "charts"] as const;
export type Tab = (typeof TABS)[number];

/** Time ranges offered, as milliseconds back from now. */
export const RANGES = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export type Range = keyof typeof RANGES;
export const isRange = (value: string | undefined): value is Range => value !== undefined && value in RANGES;

export function useActivityFilters() {
  const { params, filters, update } = useQueryFilters(FILTER_KEYS);
  const tabParam = params.get("tab");
  const tab: Tab = TABS.find((t) => t === tabParam) ?? "messages";
  return {
    filters,
    tab,
    update: (changes: Partial<Record<FilterKey | "tab", string | undefined>>) => update(changes),
    search: params.toString(),
  };
}

/** `since` for a range, computed when a request is made so live polling keeps the window moving. */
export const sinceOf = (range: string | undefined) => (isRange(range) ? new Date(Date.now() - RANGES[range]).toISOString() : undefined);

type MessageQuery = NonNullable<paths["/v1/messages"]["get"]["parameters"]["query"]>;
type TriggerQuery = NonNullable<paths["/v1/triggers"]["get"]["parameters"]["query"]>;

const text = (value: string | undefined) => value?.trim() || undefined;

export function messageQuery(f: Filters): Omit<MessageQuery, "limit" | "cursor"> {
  return {
    workflow: text(f.workflow),
    subscriberId: text(f.subscriberId),
    transactionId: text(f.transactionId),
    channel: f.channel as MessageQuery["channel"],
    provider: text(f.provider),
    tenant: text(f.tenant),
    status: f.status as MessageQuery["status"],
    since: sinceOf(f.range),
  };
}

export function triggerQuery(f: Filters): Omit<TriggerQuery, "limit" | "cursor"> {
  return {
    workflow: text(f.workflow),
    subscriberId: text(f.subscriberId),
    transactionId: text(f.transactionId),
    status: f.status as TriggerQuery["status"],
    since: sinceOf(f.range),
  };
}
