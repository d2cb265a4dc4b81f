import type { MessageStatus } from "../../db/schema";
import type { ChannelStep } from "../../engine/steps";
import { decide } from "./decide";
import { transition } from "../recipients/recipient-transitions";
import type { Loaded, Recipient } from "../recipients/recipients-state";
import type { TriggerRecord } from "../../jobs/trigger-record";

export interface StepPlan {
  step: ChannelStep;
  /** Recipients to send to, with their rendered content. */
  sends: {
    recipient: Recipient;
    content: Record<string, unknown>;
    /** The layout's version when one wrapped the email. */
    layoutVersion?: number;
    warnings?: { field: string; message: string }[];
  }[];
  /** Recipients whose message reaches a state without a send (skipped, failed before sending, stopped). */
  finals: {
    recipient: Recipient;
    status: MessageStatus;
    code: string;
    message: string;
    layoutVersion?: number;
    /** Said in the message's timeline beside the reason (which preference level skipped it). */
    detail?: Record<string, unknown>;
  }[];
}

/**
 * Plans one channel step for the running recipients, without I/O: a message already final
 * counts as done, quiet hours or the subscriber's schedule make the recipient wait (the run resumes at this step), and the
 * rest are sends or finals.
 */
export function planChannelStep(
  step: ChannelStep,
  index: number,
  running: Recipient[],
  loaded: Loaded,
  trigger: TriggerRecord,
  now: Date,
): StepPlan {
  const plan: StepPlan = { step, sends: [], finals: [] };
  for (const recipient of running) {
    const decision = decide(step, recipient, loaded, trigger, now);
    switch (decision.kind) {
      case "done":
        transition(recipient, { type: "step", stepId: step.id, outcome: { status: decision.status } });
        break;
      case "wait":
        transition(recipient, {
          type: "wait",
          fireAt: decision.until,
          fromStep: index,
          hold: { kind: decision.reason, stepId: step.id },
          note: { heldUntil: new Date(decision.until).toISOString(), reason: decision.reason },
        });
        break;
      case "send":
        plan.sends.push({
          recipient,
          content: decision.content,
          ...(decision.layoutVersion !== undefined ? { layoutVersion: decision.layoutVersion } : {}),
          ...(decision.warnings ? { warnings: decision.warnings } : {}),
        });
        break;
      case "final":
        plan.finals.push({
          recipient,
          status: decision.status,
          code: decision.code,
          message: decision.message,
          ...(decision.layoutVersion !== undefined ? { layoutVersion: decision.layoutVersion } : {}),
          ...(decision.detail ? { detail: decision.detail } : {}),
        });
        break;
    }
  }
  return plan;
}
