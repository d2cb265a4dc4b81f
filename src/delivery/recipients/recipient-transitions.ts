import type { WaitHold } from "../../durable-objects/ledger/claims";
import type { JsonObject } from "../../contract/json";
import type { StepOutcomeView } from "../../engine/content";
import type { Recipient, Stop } from "./recipients-state";

/** Everything that can happen to a recipient during a run. */
export type RecipientEvent =
  /** A step ended for this recipient (later conditions read it as `steps.<id>`). */
  | { type: "step"; stepId: string; outcome: StepOutcomeView }
  /** Its remaining channel steps are recorded without a send, for this reason. */
  | { type: "stop"; stop: Stop }
  /** Held until `fireAt` (a delay, quiet hours); the run resumes at `fromStep`. */
  | { type: "wait"; fireAt: number; fromStep: number; hold: WaitHold; note: JsonObject }
  /** Said in the tracking log of its next message. */
  | { type: "note"; note: JsonObject }
  /** Must be tried again later: a retry, or a claim another consumer holds. */
  | { type: "halt" }
  /** Handed to a digest: the digest object continues its run. */
  | { type: "digest" }
  /** Its next message was taken; the notes said so. */
  | { type: "notes-used" }
  /** The trigger was cancelled while it was on its way to wait: nothing more runs. */
  | { type: "end" };

/**
 * The one place a recipient's run state changes. Only a running recipient can start waiting,
 * halt or go to a digest; whatever it is doing, its step outcomes and notes are kept.
 */
export function transition(recipient: Recipient, event: RecipientEvent): Recipient {
  switch (event.type) {
    case "step":
      recipient.steps[event.stepId] = event.outcome;
      return recipient;
    case "stop":
      recipient.stop = event.stop;
      return recipient;
    case "note":
      recipient.notes.push(event.note);
      return recipient;
    case "notes-used":
      recipient.notes = [];
      return recipient;
    case "wait":
      if (recipient.state !== "active") return recipient;
      recipient.state = "waiting";
      recipient.resumeAt = { fireAt: event.fireAt, fromStep: event.fromStep, hold: event.hold };
      recipient.notes.push(event.note);
      return recipient;
    case "halt":
      if (recipient.state === "active") recipient.state = "halted";
      return recipient;
    case "digest":
      if (recipient.state === "active") recipient.state = "digesting";
      return recipient;
    case "end":
      if (recipient.state === "waiting") recipient.state = "stopped";
      return recipient;
  }
}
