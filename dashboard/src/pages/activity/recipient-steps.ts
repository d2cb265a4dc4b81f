import type { components } from "../../api/openapi";

type Message = components["schemas"]["Message"];
type Waiting = components["schemas"]["WaitingStep"];
type Step = { id: string; type: string };

export interface StepState {
  step: Step;
  message?: Message;
  waiting?: Waiting;
}

/**
 * Every step of the workflow for every recipient, with the message it made or what holds it.
 * Steps come from the workflow when it can be read (it may have been deleted since), else from
 * what the messages and waits name, so nothing recorded is left out.
 */
export function recipientSteps(workflowSteps: Step[] | undefined, messages: Message[], waiting: Waiting[]) {
  const known = new Map((workflowSteps ?? []).map((s) => [s.id, s]));
  for (const m of messages) if (!known.has(m.stepId)) known.set(m.stepId, { id: m.stepId, type: m.channel });
  for (const w of waiting) if (w.stepId && !known.has(w.stepId)) known.set(w.stepId, { id: w.stepId, type: "step" });
  const recipients = [...new Set([...messages.map((m) => m.subscriberId), ...waiting.map((w) => w.subscriberId)])].sort();
  return recipients.map((subscriberId) => ({
    subscriberId,
    steps: [...known.values()].map(
      (step): StepState => ({
        step,
        message: messages.find((m) => m.subscriberId === subscriberId && m.stepId === step.id),
        waiting: waiting.find((w) => w.subscriberId === subscriberId && w.stepId === step.id),
      }),
    ),
  }));
}
