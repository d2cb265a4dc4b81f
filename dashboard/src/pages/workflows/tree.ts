// A workflow's steps as a tree, and the pure changes the editor makes to it. A place in the tree
// is its path in the workflow document, as the API's errors name it: `steps.2` for the third step,
// `steps.2.paths.0.steps.1` inside a branch's first path, `steps.2.default.steps.0` in its default.
// A list of steps is named the same way without the index (`steps`, `steps.2.paths.0.steps`).
import { type Condition, renameStepRefs, type Step } from "./model";

export type BranchStep = Extract<Step, { type: "branch" }>;
export type BranchPath = BranchStep["paths"][number];

/** The id a branch's default goes by in `steps.<branch>.path`. */
export const DEFAULT_PATH = "default";

/** One step of the tree where it sits, in run order. */
export interface Placed {
  step: Step;
  /** Its place: `steps.0.paths.1.steps.0`. */
  at: string;
  /** The list it is in, and its index there. */
  list: string;
  index: number;
  depth: number;
  /** The branch choices on the way to it, outermost first. */
  guard: { branch: string; path: string }[];
}

/** A branch's step lists: each path's, then the default's, with where they sit. */
export function branchLists(step: BranchStep, at: string): { path: string; name: string; steps: Step[]; list: string }[] {
  const lists = step.paths.map((p, i) => ({ path: p.id, name: p.name || p.id, steps: p.steps, list: `${at}.paths.${i}.steps` }));
  if (step.default) lists.push({ path: DEFAULT_PATH, name: "Default", steps: step.default.steps, list: `${at}.default.steps` });
  return lists;
}

/** Every step in the order a run meets them: a branch, its paths' steps (the default last), then what follows it. */
export function placeSteps(steps: readonly Step[], list = "steps", depth = 0, guard: Placed["guard"] = []): Placed[] {
  return steps.flatMap((step, index) => {
    const at = `${list}.${index}`;
    const here: Placed = { step, at, list, index, depth, guard };
    if (step.type !== "branch") return [here];
    return [
      here,
      ...branchLists(step, at).flatMap((l) => placeSteps(l.steps, l.list, depth + 1, [...guard, { branch: step.id, path: l.path }])),
    ];
  });
}

/** Every id in use: steps anywhere and branch paths (one namespace, as the API checks). */
export function takenIds(steps: readonly Step[]): string[] {
  return placeSteps(steps).flatMap(({ step }) => (step.type === "branch" ? [step.id, ...step.paths.map((p) => p.id)] : [step.id]));
}

/** The first of `base`, `base-2`, `base-3`, ... not taken. */
export function freeId(base: string, taken: readonly string[]): string {
  let id = base;
  for (let n = 2; taken.includes(id); n++) id = `${base}-${n}`;
  return id;
}

const split = (at: string) => at.split(".");

/** The steps of the list at `list`, or undefined when there is none. */
export function listAt(steps: Step[], list: string): Step[] | undefined {
  const parts = split(list);
  if (parts[0] !== "steps") return undefined;
  let current: Step[] = steps;
  for (let i = 1; i < parts.length; i += 1) {
    const step = current[Number(parts[i])];
    if (step?.type !== "branch") return undefined;
    const kind = parts[i + 1];
    if (kind === "paths") {
      const path = step.paths[Number(parts[i + 2])];
      if (!path) return undefined;
      current = path.steps;
      i += 3;
    } else if (kind === "default") {
      if (!step.default) return undefined;
      current = step.default.steps;
      i += 2;
    } else return undefined;
  }
  return current;
}

/** The step at `at`. */
export function stepAt(steps: Step[], at: string): Step | undefined {
  const { list, index } = parent(at);
  return listAt(steps, list)?.[index];
}

/** The list a place is in and its index there. */
export function parent(at: string): { list: string; index: number } {
  const cut = at.lastIndexOf(".");
  return { list: at.slice(0, cut), index: Number(at.slice(cut + 1)) };
}

/** The tree with the list at `list` changed by `fn`; everything else is kept as it is. */
export function updateList(steps: Step[], list: string, fn: (list: Step[]) => Step[]): Step[] {
  const parts = split(list);
  const walk = (current: Step[], i: number): Step[] => {
    if (i >= parts.length) return fn(current);
    const index = Number(parts[i]);
    const step = current[index];
    if (step?.type !== "branch") return current;
    let next: Step;
    if (parts[i + 1] === "paths") {
      const p = Number(parts[i + 2]);
      next = { ...step, paths: step.paths.map((path, j) => (j === p ? { ...path, steps: walk(path.steps, i + 4) } : path)) };
    } else if (parts[i + 1] === "default" && step.default) {
      next = { ...step, default: { steps: walk(step.default.steps, i + 3) } };
    } else return current;
    return current.map((s, j) => (j === index ? next : s));
  };
  return walk(steps, 1);
}

/** A step inserted into a list at an index; the place it lands at. */
export function insertStep(steps: Step[], list: string, index: number, step: Step): { steps: Step[]; at: string } {
  const target = listAt(steps, list);
  const at = Math.max(0, Math.min(index, target?.length ?? 0));
  return { steps: updateList(steps, list, (l) => [...l.slice(0, at), step, ...l.slice(at)]), at: `${list}.${at}` };
}

/** The tree without the step at `at` (a branch goes with everything in its paths). */
export function removeStep(steps: Step[], at: string): Step[] {
  const { list, index } = parent(at);
  return updateList(steps, list, (l) => l.filter((_, i) => i !== index));
}

/** A step moved within its list to index `to`; the place it lands at (unchanged when `to` is out of the list). */
export function moveStep(steps: Step[], at: string, to: number): { steps: Step[]; at: string } {
  const { list, index } = parent(at);
  const items = listAt(steps, list);
  if (!items || to < 0 || to >= items.length || to === index) return { steps, at };
  return {
    steps: updateList(steps, list, (l) => {
      const next = [...l];
      const [item] = next.splice(index, 1);
      if (item !== undefined) next.splice(to, 0, item);
      return next;
    }),
    at: `${list}.${to}`,
  };
}

/** A condition tree with `steps.<from>.…` read as `steps.<to>.…` everywhere in the steps' conditions. */
function renameEverywhere(steps: Step[], from: string, to: string): Step[] {
  const cond = (c: Condition | undefined) => (c ? renameStepRefs(c, from, to) : c);
  return steps.map((s) => {
    let next: Step = s.if ? { ...s, if: cond(s.if) } : s;
    if (next.type === "wait") {
      const until = next.until;
      if ("message" in until && until.message.step === from) next = { ...next, until: { message: { ...until.message, step: to } } };
      else if ("signal" in until && until.if) next = { ...next, until: { ...until, if: renameStepRefs(until.if, from, to) } };
    }
    if (next.type === "branch") {
      next = {
        ...next,
        paths: next.paths.map((p) => ({ ...p, if: renameStepRefs(p.if, from, to), steps: renameEverywhere(p.steps, from, to) })),
        ...(next.default ? { default: { steps: renameEverywhere(next.default.steps, from, to) } } : {}),
      };
    }
    return next;
  });
}

/**
 * Replaces the step at `at`; when its id changes to one no other step has, every condition (and
 * wait) that read the old id follows it, as a renamed step keeps what refers to it.
 */
export function replaceStep(steps: Step[], at: string, next: Step): Step[] {
  const before = stepAt(steps, at);
  const { list, index } = parent(at);
  const replaced = updateList(steps, list, (l) => l.map((s, i) => (i === index ? next : s)));
  if (!before || before.id === next.id || next.id === "") return replaced;
  const others = placeSteps(replaced).filter((p) => p.at !== at);
  const clash = others.some((p) => p.step.id === next.id || p.step.id === before.id);
  return clash ? replaced : renameEverywhere(replaced, before.id, next.id);
}

/** The steps a run has met before reaching `at` on every way there: earlier in run order, and not in a path it may not have taken. */
export function stepsBefore(steps: Step[], at: string): Step[] {
  const placed = placeSteps(steps);
  const self = placed.find((p) => p.at === at);
  if (!self) return [];
  const mine = self.guard.map((g) => `${g.branch}:${g.path}`);
  return placed
    .slice(0, placed.indexOf(self))
    .filter((p) => p.guard.every((g, i) => mine[i] === `${g.branch}:${g.path}`))
    .map((p) => p.step);
}

/** Where a step lands after the one at `at` is removed: the next in its list, else the one before, else its branch. */
export function selectionAfterRemove(steps: Step[], at: string): string {
  const { list, index } = parent(at);
  const left = listAt(steps, list) ?? [];
  if (index < left.length) return `${list}.${index}`;
  if (left.length > 0) return `${list}.${left.length - 1}`;
  const cut = list.search(/\.(paths\.\d+|default)\.steps$/);
  return cut > 0 ? list.slice(0, cut) : "";
}
