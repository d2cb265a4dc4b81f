// When each workflow was last triggered, kept on its D1 row so the workflow list reads it there
// instead of asking every log shard. The accept path writes it, at most once a minute per
// workflow and isolate: a busy workflow costs D1 one statement a minute per isolate, not one per
// trigger, and the list lags by at most that minute (the first trigger an isolate sees is exact).
import type { Data } from "../data";

/** How long this isolate leaves a workflow's written value before writing it again. */
export const LAST_TRIGGERED_EVERY_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** When this isolate last wrote each workflow's value, by `<environment>\0<workflow id>`. */
const written = new Map<string, number>();
const keyOf = (environmentId: string, workflowId: string) => `${environmentId}\u0000${workflowId}`;

export interface AcceptedTrigger {
  workflowId: string;
  acceptedAt: number;
}

/**
 * The workflows of `accepted` whose value this isolate has not written in the last minute, each
 * with its newest acceptance, marked as written at `now`.
 */
export function dueLastTriggered(environmentId: string, accepted: readonly AcceptedTrigger[], now: number) {
  const newest = new Map<string, number>();
  for (const { workflowId, acceptedAt } of accepted) newest.set(workflowId, Math.max(acceptedAt, newest.get(workflowId) ?? 0));
  const due: { workflowId: string; at: number }[] = [];
  for (const [workflowId, at] of newest) {
    const key = keyOf(environmentId, workflowId);
    const last = written.get(key);
    if (last !== undefined && now - last < LAST_TRIGGERED_EVERY_MS) continue;
    if (written.size >= MAX_ENTRIES) written.clear();
    written.set(key, now);
    due.push({ workflowId, at });
  }
  return due;
}

/**
 * Writes what is due of `accepted` (one D1 batch, or nothing). It never rejects: the triggers are
 * accepted whatever becomes of it, and a failed write is forgotten so the next trigger tries again.
 */
export async function recordLastTriggered(data: Data, accepted: readonly AcceptedTrigger[], now = Date.now()): Promise<void> {
  const due = dueLastTriggered(data.environmentId, accepted, now);
  if (due.length === 0) return;
  try {
    await data.accept.recordLastTriggered(due);
  } catch (error) {
    for (const { workflowId } of due) {
      const key = keyOf(data.environmentId, workflowId);
      if (written.get(key) === now) written.delete(key);
    }
    const message = error instanceof Error ? error.message : String(error);
    console.error(JSON.stringify({ level: "error", message: `last triggered of ${due.length} workflow(s) not written: ${message}` }));
  }
}
