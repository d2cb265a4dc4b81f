// What the History tab draws: a workflow definition as rows of fields (template fields one by one,
// everything else whole), and two versions side by side, steps matched by id as the API's diff
// matches them.
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
  rows: DiffRow[];
}

const SETTINGS = ["name", "description", "active", "critical", "unsubscribe", "tags", "payloadSchema"] as const;
/** Objects whose fields are compared one by one (a template's subject apart from its HTML). */
const EXPANDED = new Set(["template"]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A step's fields; `id` is the section's name and is not repeated as a row. */
export function stepRows(step: Step): FieldRow[] {
  const entries: [string, unknown][] = [];
  for (const [field, value] of Object.entries(step)) {
    if (field === "id") continue;
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
 * The sections of a side-by-side diff: the settings, then the steps in the later version's order,
 * each removed step after the step that came before it.
 */
export function diffSections(from: WorkflowDefinition, to: WorkflowDefinition, changes: VersionChange[]): DiffSection[] {
  const settingFields = changes.filter((c) => c.step === null).flatMap((c) => c.fields);
  const settings = pairRows(settingsRows(from), settingsRows(to), settingFields);
  const sections: DiffSection[] = [
    { step: null, change: settings.some((r) => r.changed) ? "changed" : "unchanged", moved: false, rows: settings },
  ];
  const of = (id: string) => changes.filter((c) => c.step === id);
  const before = new Map(from.steps.map((s) => [s.id, s]));
  const order: { step: Step; removed: boolean }[] = to.steps.map((step) => ({ step, removed: false }));
  from.steps.forEach((step, i) => {
    if (to.steps.some((s) => s.id === step.id)) return;
    const previous = from.steps[i - 1];
    const at = previous ? order.findIndex((o) => o.step.id === previous.id) : -1;
    order.splice(at + 1, 0, { step, removed: true });
  });
  for (const { step, removed } of order) {
    const listed = of(step.id);
    const moved = listed.some((c) => c.change === "moved");
    const old = before.get(step.id);
    if (removed) {
      sections.push({ step: step.id, type: step.type, change: "removed", moved, rows: pairRows(stepRows(step), [], []) });
    } else if (!old) {
      sections.push({ step: step.id, type: step.type, change: "added", moved, rows: pairRows([], stepRows(step), []) });
    } else {
      const rows = pairRows(
        stepRows(old),
        stepRows(step),
        listed.flatMap((c) => c.fields),
      );
      const change: SectionChange = rows.some((r) => r.changed) ? "changed" : moved ? "moved" : "unchanged";
      sections.push({ step: step.id, type: step.type, change, moved, rows });
    }
  }
  return sections;
}
