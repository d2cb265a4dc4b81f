import type { BranchStep, Step } from "./steps";

/** The id a branch's `default` goes by in a run's path and in `steps.<branch>.path`. */
export const DEFAULT_PATH = "default";

/** Which way a branch went, as a step further down requires it. */
export interface PathChoice {
  branch: string;
  path: string;
}

/** One step of a workflow's tree, where it sits. */
export interface PlacedStep {
  step: Step;
  /** Its place in the workflow document: `["steps", 2, "paths", 0, "steps", 1]`. */
  at: (string | number)[];
  /** How many branches it sits inside (0 at the top). */
  depth: number;
  /** The branch choices a recipient must have made for this step to be on its way, outermost first. */
  guard: PathChoice[];
}

/**
 * Every step of a tree in the order a run meets them: a branch, then each of its paths' steps
 * (paths in order, the default last), then what follows the branch. This order is the run's
 * program: `fromStep` indexes it, so a workflow without branches keeps the indexes of its list.
 * Iterative, so any depth is safe (the schema bounds it anyway).
 */
export function placeSteps(steps: readonly Step[]): PlacedStep[] {
  const placed: PlacedStep[] = [];
  type Frame = { steps: readonly Step[]; at: (string | number)[]; depth: number; guard: PathChoice[]; next: number };
  const stack: Frame[] = [{ steps, at: ["steps"], depth: 0, guard: [], next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.steps.length) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    const step = frame.steps[index]!;
    const at = [...frame.at, index];
    placed.push({ step, at, depth: frame.depth, guard: frame.guard });
    if (step.type !== "branch") continue;
    // Pushed in reverse, so the first path is walked first.
    for (const { steps: inner, at: innerAt, path } of branchLists(step, at).reverse()) {
      stack.push({ steps: inner, at: innerAt, depth: frame.depth + 1, guard: [...frame.guard, { branch: step.id, path }], next: 0 });
    }
  }
  return placed;
}

/** A branch's step lists with where they sit: each path's, then the default's. */
export function branchLists(step: BranchStep, at: (string | number)[]) {
  const lists = step.paths.map((p, i) => ({ path: p.id, steps: p.steps, at: [...at, "paths", i, "steps"] }));
  if (step.default) lists.push({ path: DEFAULT_PATH, steps: step.default.steps, at: [...at, "default", "steps"] });
  return lists;
}

/** Every step of the tree, depth first, in run order. */
export const allSteps = (steps: readonly Step[]): Step[] => placeSteps(steps).map((p) => p.step);

/** The step with this id anywhere in the tree. */
export const findStep = (steps: readonly Step[], id: string): Step | undefined => allSteps(steps).find((s) => s.id === id);

/** Whether a workflow uses any branch: a list is run (and shown) as before. */
export const hasBranches = (steps: readonly Step[]): boolean => steps.some((s) => s.type === "branch");

/**
 * The same tree with every step passed through `fn` (children first, so `fn` sees a branch with
 * its paths already mapped). For rewriting a workflow's steps wherever they sit.
 */
export function mapSteps(steps: readonly Step[], fn: (step: Step) => Step): Step[] {
  return steps.map((step) => {
    if (step.type !== "branch") return fn(step);
    const paths = step.paths.map((p) => ({ ...p, steps: mapSteps(p.steps, fn) }));
    return fn({ ...step, paths, ...(step.default ? { default: { steps: mapSteps(step.default.steps, fn) } } : {}) });
  });
}

/** Whether a recipient whose branches went as `chosen` (branch id → path id) reaches a step with this guard. */
export const onPath = (guard: readonly PathChoice[], chosen: (branch: string) => string | undefined): boolean =>
  guard.every((g) => chosen(g.branch) === g.path);
