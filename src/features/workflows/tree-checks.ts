import { hasLineBreak, LINE_BREAK_MESSAGE } from "../../contract/email-address";
import type { ErrorCode } from "../../lib/errors";
import { MAX_CONDITION_DEPTH } from "../../lib/json-limits";
import { parseDuration } from "../../engine/durations";
import { type Condition, isChannelStep, MAX_BRANCH_DEPTH, MAX_BRANCH_PATHS, MAX_WAIT_DAYS, type Step } from "../../engine/steps";
import { type PathChoice, placeSteps } from "../../engine/workflow-tree";
import { conditionDepth } from "./condition-depth";

/** Steps in a whole tree, every branch's paths counted. */
export const MAX_TREE_STEPS = 100;

/**
 * A save-time issue; `problem` names the specific code the 422 answers with (a too deep tree is
 * `workflow_too_deep`, not the generic `validation_failed`), so a client can tell it apart.
 */
export interface TreeIssue {
  path: (string | number)[];
  message: string;
  params?: { problem: ErrorCode };
}

/**
 * What the schema alone cannot say about a workflow's tree: step ids unique across every path,
 * branches at most MAX_BRANCH_DEPTH deep with at most MAX_BRANCH_PATHS paths, conditions not
 * nested too deep, email header fields on one line, a wait watching a step that comes before it,
 * and no workflow that triggers itself.
 */
export function treeIssues(key: string, steps: readonly Step[]): TreeIssue[] {
  const issues: TreeIssue[] = [];
  const placed = placeSteps(steps);
  if (placed.length > MAX_TREE_STEPS) {
    issues.push({ path: ["steps"], message: `A workflow holds at most ${MAX_TREE_STEPS} steps, counting every branch's.` });
  }
  const seen = new Set<string>();
  const guards = new Map(placed.map((p) => [p.step.id, p.guard]));
  for (const { step, at, depth, guard } of placed) {
    if (seen.has(step.id)) issues.push({ path: [...at, "id"], message: `Step id "${step.id}" is used twice.` });
    seen.add(step.id);
    issues.push(...conditionIssues(step, at), ...headerIssues(step, at));
    if (step.type === "branch") {
      if (depth + 1 > MAX_BRANCH_DEPTH) {
        issues.push({
          path: at,
          message: `Branches nest at most ${MAX_BRANCH_DEPTH} deep; this one is ${depth + 1} deep.`,
          params: { problem: "workflow_too_deep" },
        });
      }
      if (step.paths.length > MAX_BRANCH_PATHS) {
        issues.push({
          path: [...at, "paths"],
          message: `A branch has at most ${MAX_BRANCH_PATHS} paths (and a default); this one has ${step.paths.length}.`,
          params: { problem: "too_many_paths" },
        });
      }
      for (const [i, p] of step.paths.entries()) {
        if (seen.has(p.id)) issues.push({ path: [...at, "paths", i, "id"], message: `Path id "${p.id}" is used twice.` });
        seen.add(p.id);
      }
    }
    if (step.type === "wait" && "message" in step.until) {
      const watched = step.until.message.step;
      const before = seen.has(watched) && isPrefix(guards.get(watched) ?? [], guard);
      const channel = placed.find((p) => p.step.id === watched && isChannelStep(p.step));
      if (!before || !channel) {
        issues.push({
          path: [...at, "until", "message", "step"],
          message: `A wait watches a channel step that runs before it on the same path; "${watched}" is not one.`,
        });
      }
    }
    if (step.type === "wait") {
      const ms = parseDuration(step.timeout);
      if (ms === null || ms <= 0 || ms > MAX_WAIT_DAYS * 86_400_000) {
        issues.push({
          path: [...at, "timeout"],
          message: `A wait lasts more than nothing and at most ${MAX_WAIT_DAYS} days (P${MAX_WAIT_DAYS}D).`,
        });
      }
    }
    if (step.type === "trigger_workflow" && step.workflow === key) {
      issues.push({
        path: [...at, "workflow"],
        message: "A workflow may not trigger itself.",
        params: { problem: "workflow_triggers_itself" },
      });
    }
  }
  return issues;
}

function conditionIssues(step: Step, at: (string | number)[]): TreeIssue[] {
  const conditions: [(string | number)[], Condition | undefined][] = [[[...at, "if"], step.if]];
  if (step.type === "branch")
    conditions.push(...step.paths.map((p, i): [(string | number)[], Condition] => [[...at, "paths", i, "if"], p.if]));
  if (step.type === "wait" && "signal" in step.until) conditions.push([[...at, "until", "if"], step.until.if]);
  return conditions.flatMap(([path, condition]) =>
    condition && conditionDepth(condition) > MAX_CONDITION_DEPTH
      ? [{ path, message: `Conditions nest at most ${MAX_CONDITION_DEPTH} groups (all, any, not) deep.` }]
      : [],
  );
}

/** From, reply-to and subject become email headers: a line break there would forge another header. */
function headerIssues(step: Step, at: (string | number)[]): TreeIssue[] {
  if (step.type !== "email") return [];
  const templates = [
    [["template"], step.template] as const,
    ...Object.entries(step.locales ?? {}).map(([l, t]) => [["locales", l], t] as const),
  ];
  return templates.flatMap(([where, template]) =>
    (["from", "replyTo", "subject"] as const).flatMap((field) => {
      const value = template[field];
      return value !== undefined && hasLineBreak(value) ? [{ path: [...at, ...where, field], message: LINE_BREAK_MESSAGE }] : [];
    }),
  );
}

/** Whether every branch choice of `outer` is also one of `inner`'s: a step there runs before, on the same path. */
const isPrefix = (outer: readonly PathChoice[], inner: readonly PathChoice[]) =>
  outer.length <= inner.length && outer.every((g, i) => inner[i]?.branch === g.branch && inner[i]?.path === g.path);
