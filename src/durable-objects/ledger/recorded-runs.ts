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
  const { recipients, next } = pageOf(chunks ?? [], page);
  const wanted = new Set(recipients);
  return {
    recipients,
    next,
    // The page's own: a view of a large trigger read every recipient's outcomes and waits, and parsed them.
    steps: delivery.runSteps.ofInOrder(env, tx, recipients).map(shown),
    waits: delivery.waitingSteps(env, tx, Number.MAX_SAFE_INTEGER, wanted).steps,
  };
}

/** A page of the recipients in fan-out order, walking the chunks rather than copying them all into one list. */
function pageOf(chunks: readonly (readonly string[])[], page: RunPage): { recipients: string[]; next: number | null } {
  const { subscriberId, offset, limit } = page;
  if (subscriberId !== undefined) {
    const matching = chunks.flatMap((c) => c.filter((id) => id === subscriberId));
    const recipients = matching.slice(offset, offset + limit);
    return { recipients, next: offset + recipients.length < matching.length ? offset + recipients.length : null };
  }
  const recipients: string[] = [];
  let total = 0;
  for (const chunk of chunks) {
    const from = Math.max(0, offset - total);
    if (from < chunk.length && recipients.length < limit) recipients.push(...chunk.slice(from, from + limit - recipients.length));
    total += chunk.length;
  }
  const end = offset + recipients.length;
  return { recipients, next: end < total ? end : null };
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
