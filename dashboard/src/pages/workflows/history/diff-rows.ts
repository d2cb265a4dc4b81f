// What the History tab draws: a workflow definition as rows of fields (template fields one by one,
// everything else whole), and two versions side by side, steps matched by id as the API's diff
// matches them.
import type { components } from "../../../api/openapi";
import type { Step } from "../model";

type WorkflowDefinition = components["schemas"]["WorkflowDefinition"];
type VersionChange = components["schemas"]["VersionChange"];

export interface FieldRow {
  /** Dotted, as the API's changes name fields: `template.subject`, `locales.de.subject`, `if`. */
  path: string;
  value: string;
}

export interface DiffRow {
  path: string;
  before?: string;
  after?: string;
  changed: boolean;
}

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

/** Text as it was typed; anything else as indented JSON; absent (undefined, null for an optional field) as nothing. */
export function show(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function rowsOf(entries: [string, unknown][]): FieldRow[] {
  return entries.flatMap(([path, value]) => {
    const text = show(value);
    return text === undefined ? [] : [{ path, value: text }];
  });
}

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

/** Whether the API named this row's field, a field inside it, or an object around it (`locales` added). */
const named = (path: string, fields: string[]) => fields.some((f) => f === path || f.startsWith(`${path}.`) || path.startsWith(`${f}.`));

/** Rows of both sides by path, in the later side's order with fields only the earlier had after them. */
export function pairRows(before: FieldRow[], after: FieldRow[], fields: string[] = []): DiffRow[] {
  const old = new Map(before.map((r) => [r.path, r.value]));
  const paths = [...after.map((r) => r.path), ...before.map((r) => r.path).filter((p) => !after.some((r) => r.path === p))];
  const now = new Map(after.map((r) => [r.path, r.value]));
  return paths.map((path) => {
    const b = old.get(path);
    const a = now.get(path);
    return { path, before: b, after: a, changed: b !== a || named(path, fields) };
  });
}

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

export interface Line {
  text: string;
  /** Not among the other side's lines: what this side added or lost. */
  marked: boolean;
}

/** A value's lines, each marked when the other side has no such line left to pair it with. */
export function markLines(text: string, other: string | undefined): Line[] {
  const left = new Map<string, number>();
  for (const line of (other ?? "").split("\n")) left.set(line, (left.get(line) ?? 0) + 1);
  return text.split("\n").map((line) => {
    const count = left.get(line) ?? 0;
    if (other !== undefined && count > 0) {
      left.set(line, count - 1);
      return { text: line, marked: false };
    }
    return { text: line, marked: true };
  });
}
