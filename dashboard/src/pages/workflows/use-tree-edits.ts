import { useState } from "react";
import { newStep, type Step, type StepType } from "./model";
import { insertStep, moveStep, parent, removeStep, selectionAfterRemove, stepAt, takenIds } from "./tree";
import type { WorkflowDraft } from "./use-workflow-draft";

/**
 * Focus follows a moved step (its other arrow when it reached an end), as a keyboard user
 * expects: the tree is drawn again by place, so the focused button would belong to another step.
 * The canvas draws the new order a render or two later than the list, so this waits for the
 * step's row at its new place and sees focus settle there for a few frames.
 */
function keepFocusOnMove(at: string, direction: "up" | "down", step: string, frames = 60, settled = 0) {
  requestAnimationFrame(() => {
    const row = document.querySelector<HTMLElement>(`[data-at="${at}"][data-step-row="${CSS.escape(step)}"]`);
    const [up, down] = row ? [...row.querySelectorAll<HTMLButtonElement>(".step-actions button")] : [];
    const wanted = direction === "up" ? up : down;
    const target = wanted && !wanted.disabled ? wanted : direction === "up" ? down : up;
    if (target && document.activeElement !== target) target.focus();
    const done = target !== undefined && document.activeElement === target;
    if (frames > 0 && !(done && settled >= 5)) keepFocusOnMove(at, direction, step, frames - 1, done ? settled + 1 : 0);
  });
}

/** The changes the tree takes: insert a new step anywhere, move one within its list, remove one (and take that back). */
export function useTreeEdits(edit: WorkflowDraft) {
  const steps = edit.draft.steps;
  // The last step removed, so a slip can be taken back (until another step is removed).
  const [removed, setRemoved] = useState<{ step: Step; at: string } | null>(null);
  return {
    removed,
    insert: (list: string, index: number, type: StepType) => {
      const placed = insertStep(steps, list, index, newStep(type, takenIds(steps)));
      edit.setSteps(placed.steps, placed.at);
    },
    move: (at: string, to: number) => {
      const moved = moveStep(steps, at, to);
      edit.setSteps(moved.steps, moved.at);
      const step = stepAt(steps, at);
      if (step) keepFocusOnMove(moved.at, to < parent(at).index ? "up" : "down", step.id);
    },
    remove: (at: string) => {
      const step = stepAt(steps, at);
      if (!step) return;
      const left = removeStep(steps, at);
      setRemoved({ step, at });
      edit.setSteps(left, selectionAfterRemove(left, at));
    },
    undo: () => {
      if (!removed) return;
      const { list, index } = parent(removed.at);
      const back = insertStep(steps, list, index, removed.step);
      edit.setSteps(back.steps, back.at);
      setRemoved(null);
    },
    append: (type: StepType) => {
      const placed = insertStep(steps, "steps", steps.length, newStep(type, takenIds(steps)));
      edit.setSteps(placed.steps, placed.at);
    },
  };
}

export type TreeEdits = ReturnType<typeof useTreeEdits>;
