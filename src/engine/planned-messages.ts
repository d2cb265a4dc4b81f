import { isChannelStep, type Step } from "./steps";

/**
 * The most messages one recipient's run can send: its channel steps along the longest way through
 * the tree (a branch sends only one of its paths, or its default, or nothing). A cancel counts
 * the messages it stopped from this, so a branch's paths are not counted as if all of them ran.
 */
export function plannedMessages(steps: readonly Step[]): number {
  let count = 0;
  for (const step of steps) {
    if (isChannelStep(step)) count++;
    else if (step.type === "branch") {
      const ways = [...step.paths.map((p) => p.steps), step.default?.steps ?? []];
      count += Math.max(...ways.map(plannedMessages));
    }
  }
  return count;
}
