// The rollups' time buckets and latency bounds, for readers of LogStore.analytics that are not
// allowed log-store.ts itself (a value import of it would build stores outside the clients).
export { DAY_MS, HOUR_MS, LATENCY_BUCKETS_MS } from "../log/rollups/rows";
