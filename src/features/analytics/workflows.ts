import type { z } from "@hono/zod-openapi";
import type { CountRow } from "../../durable-objects/client/log-store";
import { CHANNELS } from "../../engine/steps";
import { allSteps } from "../../engine/workflow-tree";
import type { Data } from "../data";
import { byReason, MASKS, reaches } from "./figures";
import { rangeOf, rangeView, rollupQuery } from "./range";
import type { FunnelStep, WorkflowsQuery, WorkflowsReport } from "./schemas";

type Step = z.infer<typeof FunnelStep>;
const CHANNEL_TYPES: readonly string[] = CHANNELS;

function funnelStep(stepId: string, channel: string, inWorkflow: boolean, rows: CountRow[]): Step {
  const count = (mask: number) => rows.reduce((n, r) => n + (reaches(r, mask) ? r.n : 0), 0);
  return {
    stepId,
    channel,
    inWorkflow,
    reached: rows.reduce((n, r) => n + r.n, 0),
    sent: count(MASKS.sent),
    delivered: count(MASKS.delivered),
    engaged: count(MASKS.engaged),
    failed: count(MASKS.failed),
    skipped: count(MASKS.skipped),
    cancelled: count(MASKS.cancelled),
    skippedByReason: byReason(rows, MASKS.skipped),
    failedByReason: byReason(rows, MASKS.failed),
  };
}

/**
 * Per workflow: its triggers and recipients and a funnel per channel step, in the order the
 * workflow has them now (read from D1), then the steps it no longer has.
 */
export async function workflowFunnels(data: Data, q: z.infer<typeof WorkflowsQuery>): Promise<WorkflowsReport> {
  const range = rangeOf(q);
  const part = await data.analytics.rollups(rollupQuery(range, { ...q, provider: undefined }), ["counts", "audience"]);
  const counts = Map.groupBy(part.counts ?? [], (r) => r.workflowKey);
  const audience = Map.groupBy(part.audience ?? [], (a) => a.workflowKey);
  const keys = [...new Set([...counts.keys(), ...audience.keys()])];
  const workflows = await Promise.all(keys.map((key) => data.workflows.find(key)));

  const report = keys.map((key, i) => {
    const workflow = workflows[i] ?? null;
    const rows = counts.get(key) ?? [];
    const byStep = Map.groupBy(rows, (r) => r.stepId);
    const current = (workflow ? allSteps(workflow.steps) : [])
      .filter((s) => CHANNEL_TYPES.includes(s.type) && (q.channel === undefined || s.type === q.channel))
      .map((s) => funnelStep(s.id, s.type, true, byStep.get(s.id) ?? []));
    const known = new Set(current.map((s) => s.stepId));
    const gone = [...byStep]
      .filter(([id]) => !known.has(id))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, some]) => funnelStep(id, some[0]!.channel, false, some));
    const seen = audience.get(key) ?? [];
    return {
      workflowKey: key,
      name: workflow?.name ?? null,
      exists: workflow !== null,
      triggers: seen.reduce((n, a) => n + a.triggers, 0),
      recipients: seen.reduce((n, a) => n + a.recipients, 0),
      messages: rows.reduce((n, r) => n + r.n, 0),
      steps: [...current, ...gone],
    };
  });
  report.sort((a, b) => b.messages - a.messages || b.triggers - a.triggers || (a.workflowKey < b.workflowKey ? -1 : 1));
  return { range: rangeView(range), data: report };
}
