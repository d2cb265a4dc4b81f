import type { WorkflowDefinition } from "../../../db/schema";
import { jsonEqual, jsonPatch } from "./json-patch";

/** A change between two versions, for people: a workflow field, or one step by its id. */
export interface VersionChange {
  /** The step's id; null for a field of the workflow itself. */
  step: string | null;
  change: "added" | "removed" | "changed" | "moved";
  /** Dotted paths of what changed (`template.subject`); empty for an added, removed or moved step. */
  fields: string[];
}

const WORKFLOW_FIELDS = ["name", "description", "active", "critical", "unsubscribe", "tags", "payloadSchema"] as const;

/** `/template/subject` → `template.subject`; the patch's pointers unescaped. */
const dotted = (path: string) =>
  path
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

/** Steps are matched by id, not position: inserting one step does not make every later one "changed". */
export function versionChanges(from: WorkflowDefinition, to: WorkflowDefinition): VersionChange[] {
  const changes: VersionChange[] = [];
  for (const field of WORKFLOW_FIELDS) {
    if (!jsonEqual(from[field] ?? null, to[field] ?? null)) changes.push({ step: null, change: "changed", fields: [field] });
  }
  const before = new Map(from.steps.map((step) => [step.id, step]));
  const after = new Map(to.steps.map((step) => [step.id, step]));
  const keptBefore = from.steps.filter((s) => after.has(s.id)).map((s) => s.id);
  const keptAfter = to.steps.filter((s) => before.has(s.id)).map((s) => s.id);
  for (const step of from.steps) if (!after.has(step.id)) changes.push({ step: step.id, change: "removed", fields: [] });
  for (const step of to.steps) {
    const old = before.get(step.id);
    if (!old) {
      changes.push({ step: step.id, change: "added", fields: [] });
      continue;
    }
    const fields = [...new Set(jsonPatch(old, step).map((op) => dotted(op.path)))];
    if (fields.length > 0) changes.push({ step: step.id, change: "changed", fields });
    if (keptBefore.indexOf(step.id) !== keptAfter.indexOf(step.id)) changes.push({ step: step.id, change: "moved", fields: [] });
  }
  return changes;
}

const SUMMARY_LENGTH = 200;

/** The one line a version list shows: "Deactivated", or what changed, cut to 200 characters. */
export function summarise(changes: VersionChange[], to: WorkflowDefinition): string {
  if (changes.length === 0) return "No changes";
  if (changes.length === 1 && changes[0]?.step === null && changes[0].fields[0] === "active")
    return to.active ? "Activated" : "Deactivated";
  const parts = changes.map((c) =>
    c.step === null
      ? `${c.fields.join(", ")} changed`
      : c.change === "changed"
        ? `step "${c.step}": ${c.fields.join(", ")} changed`
        : `step "${c.step}" ${c.change}`,
  );
  const line = parts.join("; ");
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line;
}
