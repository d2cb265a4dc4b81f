import type { components } from "../../api/openapi";
import type { Step } from "./model";
import { placeSteps } from "./tree";

type PreviewStep = components["schemas"]["PreviewStep"];

/** What the preview says of a step of the tree: on the sample's path or not, would run, a branch's chosen path. */
export interface Mark {
  onPath: boolean;
  wouldRun: boolean;
  path?: string | null;
}

/**
 * The preview's verdicts by place in the tree. The preview answers in run order, as the tree is
 * walked; an answer for an older draft (ids no longer matching) marks nothing.
 */
export function marksOf(steps: Step[], preview: readonly PreviewStep[] | undefined): Map<string, Mark> {
  const marks = new Map<string, Mark>();
  if (!preview) return marks;
  const placed = placeSteps(steps);
  if (placed.length !== preview.length || placed.some((p, i) => p.step.id !== preview[i]?.id)) return marks;
  placed.forEach((p, i) => {
    const s = preview[i]!;
    marks.set(p.at, { onPath: s.onPath, wouldRun: s.wouldRun, path: s.path });
  });
  return marks;
}
