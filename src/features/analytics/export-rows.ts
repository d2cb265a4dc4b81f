import { type FlatRow, flatten } from "./export";
import type { ErrorsReport, FatigueReport, Overview, ProvidersReport, WorkflowsReport } from "./schemas";

// The main list of each report, as the exports' rows.

export const overviewRows = (r: Overview): FlatRow[] => r.data.map((b) => flatten(b));

/** One row per funnel step, with its workflow's figures. */
export const workflowRows = (r: WorkflowsReport): FlatRow[] =>
  r.data.flatMap(({ steps, ...workflow }) => steps.map((step) => flatten({ workflow, step })));

export const providerRows = (r: ProvidersReport): FlatRow[] => r.data.map((p) => flatten(p));

export const fatigueRows = (r: FatigueReport): FlatRow[] => r.data.map((d) => flatten(d));

export const errorRows = (r: ErrorsReport): FlatRow[] => r.data.map((e) => flatten(e));
