import type { DeliveryState } from "./delivery-state";
import type { RunStepRow } from "../../engine/content";
import type { RecordedRuns, RecordedStep, RunPage } from "./outcomes";

/**
 * A page of a trigger's recipients with what its home recorded of their runs: control steps'
 * outcomes and parked steps. Read-only; the ledger shard and a fan-out's coordinator answer the
 * same way from their own DeliveryState. Recipients are paged in fan-out order (the chunks), so
 * a cursor is an offset that stays valid while the trigger runs.
 */
export function recordedRuns(delivery: DeliveryState, env: string, tx: string, chunks: string[][] | null, page: RunPage): RecordedRuns {
  const everyone = (chunks ?? []).flat();
  const matching = page.subscriberId === undefined ? everyone : everyone.filter((id) => id === page.subscriberId);
  const recipients = matching.slice(page.offset, page.offset + page.limit);
  const end = page.offset + recipients.length;
  const wanted = new Set(recipients);
  return {
    recipients,
    next: end < matching.length ? end : null,
    steps: delivery.runSteps
      .all(env, tx)
      .filter((r) => wanted.has(r.subscriberId))
      .map(shown),
    waits: delivery.waitingSteps(env, tx, Number.MAX_SAFE_INTEGER).steps.filter((w) => wanted.has(w.subscriberId)),
  };
}

const SCALAR = new Set(["string", "number", "boolean"]);

/** What a run view may show of an outcome: see RecordedStep. */
function shown({ subscriberId, stepId, outcome, at }: RunStepRow & { at: number }): RecordedStep {
  const detail = Object.entries(outcome.detail ?? {}).filter(([, v]) => v === null || SCALAR.has(typeof v)) as [
    string,
    string | number | boolean | null,
  ][];
  return {
    subscriberId,
    stepId,
    status: outcome.status,
    at: outcome.at ?? new Date(at).toISOString(),
    ...(outcome.path !== undefined ? { path: outcome.path } : {}),
    ...(outcome.outcome !== undefined ? { outcome: outcome.outcome } : {}),
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    ...(outcome.until !== undefined ? { until: outcome.until } : {}),
    ...(typeof outcome.response?.status === "number" ? { responseStatus: outcome.response.status } : {}),
    ...(detail.length ? { detail: Object.fromEntries(detail) } : {}),
  };
}
