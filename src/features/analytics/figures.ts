import { FIGURE_MASKS, maskOf } from "../../contract/message-figures";
import type { CountRow } from "../../durable-objects/client/log-store";
import { ratio } from "./range";

/**
 * The masks the analytics count by: the stats' figures (`contract/message-figures.ts`) and the
 * single states they add. A message counts under each one its `states` reach.
 */
export const MASKS = {
  ...FIGURE_MASKS,
  bounced: maskOf(["bounced"]),
  skipped: maskOf(["skipped"]),
  cancelled: maskOf(["cancelled"]),
  engaged: maskOf(["opened", "clicked", "seen", "read"]),
} as const;

export type Totals = {
  messages: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  seen: number;
  read: number;
  failed: number;
  bounced: number;
  skipped: number;
  cancelled: number;
  /** Denominators of the per-channel rates. */
  emailDelivered: number;
  inAppDelivered: number;
  attempted: number;
};

const FOLDED = ["sent", "delivered", "opened", "clicked", "seen", "read", "failed", "bounced", "skipped", "cancelled"] as const;

export const emptyTotals = (): Totals => ({
  messages: 0,
  sent: 0,
  delivered: 0,
  opened: 0,
  clicked: 0,
  seen: 0,
  read: 0,
  failed: 0,
  bounced: 0,
  skipped: 0,
  cancelled: 0,
  emailDelivered: 0,
  inAppDelivered: 0,
  attempted: 0,
});

export const reaches = (row: Pick<CountRow, "states">, mask: number) => (row.states & mask) !== 0;

export function addCount(into: Totals, row: CountRow): void {
  into.messages += row.n;
  for (const f of FOLDED) if (reaches(row, MASKS[f])) into[f] += row.n;
  if (reaches(row, MASKS.sent | MASKS.failed)) into.attempted += row.n;
  if (reaches(row, MASKS.delivered)) {
    if (row.channel === "email") into.emailDelivered += row.n;
    if (row.channel === "in_app") into.inAppDelivered += row.n;
  }
}

export const totalsOf = (rows: CountRow[]) => {
  const t = emptyTotals();
  for (const r of rows) addCount(t, r);
  return t;
};

/** The figures an answer shows: the per-channel denominators stay inside. */
export const publicTotals = ({ emailDelivered: _e, inAppDelivered: _i, attempted: _a, ...shown }: Totals) => shown;

export function ratesOf(t: Totals, optOuts: number | null) {
  return {
    delivery: ratio(t.delivered, t.sent),
    open: ratio(t.opened, t.emailDelivered),
    click: ratio(t.clicked, t.emailDelivered),
    read: ratio(t.read, t.inAppDelivered),
    failure: ratio(t.failed, t.attempted),
    bounce: ratio(t.bounced, t.sent),
    optOut: optOuts === null ? null : ratio(optOuts, t.delivered),
  };
}

/** Counts by reason of the rows that reach `mask`. */
export function byReason(rows: CountRow[], mask: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) if (reaches(r, mask)) out[r.reason ?? "unknown"] = (out[r.reason ?? "unknown"] ?? 0) + r.n;
  return out;
}
