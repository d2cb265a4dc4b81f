// The send latency buckets the analytics rollups keep, for readers that hold no LogStore (the
// /metrics histogram shares them, so its `le` bounds are the rollups' own).
export { LATENCY_BUCKETS_MS } from "../log/rollups/rows";
