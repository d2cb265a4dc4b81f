import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { TRIGGER_STATUSES } from "../../contract/statuses";
import { environmentId, json, timestamps } from "./columns";

export { TRIGGER_STATUSES, type TriggerStatus } from "../../contract/statuses";

/** The queryable record of a trigger, written by the Queue consumer in batches. */
export const triggers = sqliteTable(
  "triggers",
  {
    environmentId: environmentId(),
    transactionId: text("transaction_id").notNull(),
    workflowKey: text("workflow_key").notNull(),
    status: text("status", { enum: TRIGGER_STATUSES }).notNull(),
    recipients: json<unknown>("recipients").notNull(),
    payload: json<Record<string, unknown>>("payload").notNull(),
    overrides: json<Record<string, unknown>>("overrides"),
    actor: json<unknown>("actor"),
    acceptedAt: integer("accepted_at", { mode: "timestamp_ms" }).notNull(),
    /** Messages a `DELETE /v1/trigger/` stopped, as it answered: counted at once, before each is recorded. */
    cancelledMessages: integer("cancelled_messages"),
    /** The workflow version the trigger was accepted with (its steps run that content); null before versions. */
    workflowVersion: integer("workflow_version"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("triggers_env_txn_uq").on(t.environmentId, t.transactionId),
    index("triggers_env_accepted_idx").on(t.environmentId, t.acceptedAt),
    // GET /v1/triggers?workflow= (newest first) and the workflow list's "last triggered" (one seek, max over the last column).
    index("triggers_env_workflow_idx").on(t.environmentId, t.workflowKey, t.acceptedAt),
  ],
);
