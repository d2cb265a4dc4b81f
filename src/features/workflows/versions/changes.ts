import type { WorkflowDefinition } from "../../../db/schema";
import type { Step } from "../../../engine/steps";
import { type PlacedStep, placeSteps } from "../../../engine/workflow-tree";
import { jsonEqual, jsonPatch } from "./json-patch";

/** A change between two versions, for people: a workflow field, or one step by its id. */
export interface VersionChange {
  /** The step's id; null for a field of the workflow itself. */
  step: string | null;
  change: "added" | "removed" | "changed" | "moved";
  /** Dotted paths of what changed (`template.subject`); empty for an added, removed or moved step. */
  fields: string[];
  /** Where the step sits in the later version (the earlier one for a removed step): `steps.2.paths.0.steps.1`. */
  path?: string;
  /** For a moved step, where it sat in the earlier version. */
  from?: string;
}

const WORKFLOW_FIELDS = ["name", "description", "active", "critical", "unsubscribe", "tags", "payloadSchema"] as const;

/** `/template/subject` → `template.subject`; the patch's pointers unescaped. */
const dotted = (path: string) =>
  path
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

/**
 * A branch without the steps inside its paths: those are matched by id on their own, so adding a
 * step to a path is that step's change, not the branch's.
 */
function ownFields(step: Step): unknown {
  if (step.type !== "branch") return step;
  return {
    ...step,
    paths: step.paths.map(({ steps: _inner, ...path }) => path),
    ...(step.default ? { default: {} } : {}),
  };
}

/**
 * The list a step sits in: its branch by id (so a branch moving does not move what is inside it)
 * and the path by place (so renaming a path does not move its steps).
 */
const listOf = (placed: PlacedStep) => {
  const last = placed.guard[placed.guard.length - 1];
  return last ? `${last.branch}/${placed.at.slice(-3, -1).join(".")}` : "";
};

/**
 * Steps are matched by id at any depth, not by position: inserting one step does not make every
 * later one "changed", and a step taken into a branch's path is "moved", with where it went.
 */
export function versionChanges(from: WorkflowDefinition, to: WorkflowDefinition): VersionChange[] {
  const changes: VersionChange[] = [];
  for (const field of WORKFLOW_FIELDS) {
    if (!jsonEqual(from[field] ?? null, to[field] ?? null)) changes.push({ step: null, change: "changed", fields: [field] });
  }
  const earlier = placeSteps(from.steps);
  const later = placeSteps(to.steps);
  const before = new Map(earlier.map((p) => [p.step.id, p]));
  const after = new Map(later.map((p) => [p.step.id, p]));
  // A step's rank among the steps that sit in its list in both versions: a move is a new list or a new rank.
  const ranks = (placed: PlacedStep[], other: Map<string, PlacedStep>) => {
    const counts = new Map<string, number>();
    const rank = new Map<string, number>();
    for (const p of placed) {
      const there = other.get(p.step.id);
      const list = listOf(p);
      if (!there || listOf(there) !== list) continue;
      const n = counts.get(list) ?? 0;
      rank.set(p.step.id, n);
      counts.set(list, n + 1);
    }
    return rank;
  };
  const rankBefore = ranks(earlier, after);
  const rankAfter = ranks(later, before);
  const where = (p: PlacedStep) => p.at.join(".");
  for (const p of earlier) if (!after.has(p.step.id)) changes.push({ step: p.step.id, change: "removed", fields: [], path: where(p) });
  for (const p of later) {
    const id = p.step.id;
    const old = before.get(id);
    if (!old) {
      changes.push({ step: id, change: "added", fields: [], path: where(p) });
      continue;
    }
    const fields = [...new Set(jsonPatch(ownFields(old.step), ownFields(p.step)).map((op) => dotted(op.path)))];
    if (fields.length > 0) changes.push({ step: id, change: "changed", fields, path: where(p) });
    if (listOf(old) !== listOf(p) || rankBefore.get(id) !== rankAfter.get(id)) {
      changes.push({ step: id, change: "moved", fields: [], path: where(p), from: where(old) });
    }
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
