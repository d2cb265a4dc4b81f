// When each workflow was last triggered, kept on its D1 row so the workflow list reads it there
// instead of asking every log shard. The accept path writes it, at most once a minute per
// workflow and isolate: a busy workflow costs D1 one statement a minute per isolate, not one per
// trigger, and the list lags by at most that minute (the first trigger an isolate sees is exact).
import type { Data } from "../data";

/** How long this isolate leaves a workflow's written value before writing it again. */
export const LAST_TRIGGERED_EVERY_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * When this isolate last wrote each workflow's value, by environment then workflow id: two maps,
 * not one keyed by a joined string, so the check every trigger makes builds no string.
 */
const written = new Map<string, Map<string, number>>();
let entries = 0;

export interface AcceptedTrigger {
  workflowId: string;
  acceptedAt: number;
}

/**
 * The workflows of `accepted` whose value this isolate has not written in the last minute, each
 * with its newest acceptance, marked as written at `now`. Nearly every call finds none due and
 * makes nothing.
 */
export function dueLastTriggered(environmentId: string, accepted: readonly AcceptedTrigger[], now: number) {
  const inEnvironment = written.get(environmentId);
  let newest: Map<string, number> | undefined;
  for (const { workflowId, acceptedAt } of accepted) {
    const last = inEnvironment?.get(workflowId);
    if (last !== undefined && now - last < LAST_TRIGGERED_EVERY_MS) continue;
    newest ??= new Map();
    newest.set(workflowId, Math.max(acceptedAt, newest.get(workflowId) ?? 0));
  }
  if (newest === undefined) return [];
  if (entries >= MAX_ENTRIES) {
    written.clear();
    entries = 0;
  }
  const marks = written.get(environmentId) ?? new Map<string, number>();
  written.set(environmentId, marks);
  const due: { workflowId: string; at: number }[] = [];
  for (const [workflowId, at] of newest) {
    if (!marks.has(workflowId)) entries++;
    marks.set(workflowId, now);
    due.push({ workflowId, at });
  }
  return due;
}

/**
 * Writes what is due of `accepted` (one D1 batch), or answers nothing when nothing is due, as for
 * nearly every trigger: then the request makes no promise and leaves no background task. The
 * write never rejects: the triggers are accepted whatever becomes of it, and a failed write is
 * forgotten so the next trigger tries again.
 */
export function recordLastTriggered(data: Data, accepted: readonly AcceptedTrigger[], now = Date.now()): Promise<void> | undefined {
  const due = dueLastTriggered(data.environmentId, accepted, now);
  return due.length === 0 ? undefined : writeDue(data, due, now);
}

async function writeDue(data: Data, due: { workflowId: string; at: number }[], now: number): Promise<void> {
  try {
    await data.accept.recordLastTriggered(due);
  } catch (error) {
    const marks = written.get(data.environmentId);
    for (const { workflowId } of due)
      if (marks?.get(workflowId) === now) {
        marks.delete(workflowId);
        entries--;
      }
    const message = error instanceof Error ? error.message : String(error);
    console.error(JSON.stringify({ level: "error", message: `last triggered of ${due.length} workflow(s) not written: ${message}` }));
  }
}
