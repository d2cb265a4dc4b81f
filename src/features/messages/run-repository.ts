import { type WorkflowRef, workflowRead } from "../../db/queries/recipient-reads";
import type { Step } from "../../engine/steps";
import type { RunMessage } from "./run-view";
import type { MessageScope } from "./scope-repository";

/** The reads of a trigger's run view: its recipients' messages and the workflow version they run. */
export function runReads({ db, environmentId, logs }: MessageScope) {
  return {
    /**
     * The messages of a page of recipients, from the log (one seek per recipient on their own
     * shard). A trigger whose home still keeps it is recent, so none of its messages is in D1's
     * legacy table.
     */
    async recipientMessages(transactionId: string, subscriberIds: readonly string[]): Promise<RunMessage[]> {
      if (subscriberIds.length === 0) return [];
      const rows = await logs.ofRecipients(
        environmentId,
        subscriberIds.map((s): [string, string] => [transactionId, s]),
      );
      return rows
        .filter((m) => m.transactionId === transactionId)
        .map(({ id, subscriberId, stepId, status, errorCode, createdAt, updatedAt }) => ({
          id,
          subscriberId,
          stepId,
          status,
          errorCode,
          createdAt,
          updatedAt,
        }));
    },

    /** The steps of the workflow version a trigger runs; null when even its tombstone is gone. */
    async workflowSteps(ref: WorkflowRef): Promise<Step[] | null> {
      const [row] = await workflowRead(db, environmentId, ref);
      return row?.steps ?? null;
    },
  };
}
