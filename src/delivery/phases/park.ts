import type { JsonObject } from "../../contract/json";
import type { WaitEntry } from "../../durable-objects/ledger/claims";
import type { RecipientsJob } from "../../jobs/job";
import type { Recipient } from "../recipients/recipients-state";

/** The jobs that resume waiting recipients, one per (time, step) they wait for; no I/O. */
export function waitEntries(job: RecipientsJob, recipients: Recipient[]): WaitEntry[] {
  const waiting = recipients.filter((r) => r.state === "waiting" && r.resumeAt);
  // The whole hold: recipients of one wait step may have read different signals (`watch.after`).
  const groups = Map.groupBy(waiting, (r) => `${r.resumeAt!.fireAt}:${r.resumeAt!.fromStep}:${JSON.stringify(r.resumeAt!.hold)}`);
  return [...groups.values()].map((group) => ({
    fireAt: group[0]!.resumeAt!.fireAt,
    hold: group[0]!.resumeAt!.hold,
    job: {
      ...job,
      subscriberIds: group.map((r) => r.profile.subscriberId),
      fromStep: group[0]!.resumeAt!.fromStep,
      note: Object.assign({}, ...group[0]!.notes) as JsonObject,
      digest: undefined,
      digestedInto: undefined,
      // The signal this run read is not the timeout's to carry (wait.ts tells them apart by it).
      signal: undefined,
    },
  }));
}

/** Who is through every step (for the completion count) and who must be tried again. */
export function runOutcome(recipients: Recipient[]): { finished: string[]; halted: string[] } {
  const ids = (state: Recipient["state"][]) => recipients.filter((r) => state.includes(r.state)).map((r) => r.profile.subscriberId);
  return { finished: ids(["active", "stopped"]), halted: ids(["halted"]) };
}
