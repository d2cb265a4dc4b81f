// What the History tab draws: a workflow definition as rows of fields (template fields one by one,
// everything else whole), and two versions side by side, steps matched by id at any depth of the
// tree as the API's diff matches them.
import type { components } from "../../../api/openapi";
import { type DiffRow, type FieldRow, pairRows, rowsOf } from "../../../ui/field-diff";
import type { Step } from "../model";

type WorkflowDefinition = components["schemas"]["WorkflowDefinition"];
type VersionChange = components["schemas"]["VersionChange"];

export type SectionChange = "added" | "removed" | "changed" | "moved" | "unchanged";

export interface DiffSection {
  /** null for the workflow's own settings, else the step's id. */
  step: string | null;
  type?: string;
  change: SectionChange;
  /** A step can be both changed and moved. */
  moved: boolean;
  /** Where a step inside a branch sits (`route › vip`), as the later version has it (the earlier for a removed one). */
  where?: string;
  /** For a step that moved to another branch path, where it sat before (`the top level`, `route › vip`). */
  movedFrom?: string;
  /** How many branches the step sits inside. */
  depth: number;
  rows: DiffRow[];
}

/** A step where it sits in the tree: its run order is the API's (a branch, its paths in order, the default, then what follows). */
interface Placed {
  step: Step;
  /** Branch › path for each branch around it, outermost first. */
  trail: string[];
}

type BranchLike = { id: string; paths: { id: string; name?: string; steps: Step[] }[]; default?: { steps: Step[] } };
const branchOf = (step: Step): BranchLike | null => (step.type === "branch" ? (step as BranchLike) : null);

export function placed(steps: Step[], trail: string[] = []): Placed[] {
  return steps.flatMap((step) => {
    const branch = branchOf(step);
    if (!branch) return [{ step, trail }];
    return [
      { step, trail },
      ...branch.paths.flatMap((p) => placed(p.steps, [...trail, `${branch.id} › ${p.name ?? p.id}`])),
      ...(branch.default ? placed(branch.default.steps, [...trail, `${branch.id} › default`]) : []),
    ];
  });
}

const whereOf = (trail: string[]) => (trail.length === 0 ? undefined : trail.join(" › "));

const SETTINGS = ["name", "description", "active", "critical", "unsubscribe", "tags", "payloadSchema"] as const;
/** Objects whose fields are compared one by one (a template's subject apart from its HTML). */
const EXPANDED = new Set(["template"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A step's fields; `id` is the section's name and is not repeated as a row. A branch's paths are
 * rows by place (`paths.0.if`, as the API names them); the steps inside are sections of their own.
 */
export function stepRows(step: Step): FieldRow[] {
  const entries: [string, unknown][] = [];
  for (const [field, value] of Object.entries(step)) {
    if (field === "id") continue;
    const branch = branchOf(step);
    if (branch && field === "paths") {
      branch.paths.forEach((path, i) => {
        for (const [name, part] of Object.entries(path)) if (name !== "steps") entries.push([`paths.${i}.${name}`, part]);
      });
      continue;
    }
    if (branch && field === "default") {
      entries.push(["default", "a default path"]);
      continue;
    }
    if (field === "locales" && isObject(value)) {
      for (const [locale, variant] of Object.entries(value))
        if (isObject(variant)) for (const [name, text] of Object.entries(variant)) entries.push([`locales.${locale}.${name}`, text]);
    } else if (EXPANDED.has(field) && isObject(value)) {
      for (const [name, text] of Object.entries(value)) entries.push([`${field}.${name}`, text]);
    } else entries.push([field, value]);
  }
  return rowsOf(entries);
}

export const settingsRows = (definition: WorkflowDefinition): FieldRow[] => rowsOf(SETTINGS.map((field) => [field, definition[field]]));

/**
 * The sections of a side-by-side diff: the settings, then every step of the tree in the later
 * version's run order, each removed step after the step that came before it.
 */
export function diffSections(from: WorkflowDefinition, to: WorkflowDefinition, changes: VersionChange[]): DiffSection[] {
  const settingFields = changes.filter((c) => c.step === null).flatMap((c) => c.fields);
  const settings = pairRows(settingsRows(from), settingsRows(to), settingFields);
  const sections: DiffSection[] = [
    { step: null, change: settings.some((r) => r.changed) ? "changed" : "unchanged", moved: false, depth: 0, rows: settings },
  ];
  const of = (id: string) => changes.filter((c) => c.step === id);
  const earlier = placed(from.steps);
  const later = placed(to.steps);
  const before = new Map(earlier.map((p) => [p.step.id, p]));
  const order: (Placed & { removed: boolean })[] = later.map((p) => ({ ...p, removed: false }));
  earlier.forEach((p, i) => {
    if (later.some((o) => o.step.id === p.step.id)) return;
    const previous = earlier[i - 1];
    const at = previous ? order.findIndex((o) => o.step.id === previous.step.id) : -1;
    order.splice(at + 1, 0, { ...p, removed: true });
  });
  for (const { step, trail, removed } of order) {
    const listed = of(step.id);
    const moved = listed.some((c) => c.change === "moved");
    const old = before.get(step.id);
    const base = { step: step.id, type: step.type, moved, depth: trail.length, where: whereOf(trail) };
    if (removed) {
      sections.push({ ...base, change: "removed", rows: pairRows(stepRows(step), [], []) });
    } else if (!old) {
      sections.push({ ...base, change: "added", rows: pairRows([], stepRows(step), []) });
    } else {
      const rows = pairRows(
        stepRows(old.step),
        stepRows(step),
        listed.flatMap((c) => c.fields),
      );
      const change: SectionChange = rows.some((r) => r.changed) ? "changed" : moved ? "moved" : "unchanged";
      const movedFrom = old.trail.join() !== trail.join() ? (whereOf(old.trail) ?? "the top level") : undefined;
      sections.push({ ...base, change, rows, ...(movedFrom ? { movedFrom } : {}) });
    }
  }
  return sections;
}
