import { CaseUpdate } from "../case-update";
import { RowInsert } from "../row-insert";
import { messageEvents, messages, sandboxMessages } from "../schema";

// The rows a delivery phase writes by the thousand (delivery/writes/message-writes.ts), as multi-row
// inserts bound by hand rather than built by drizzle (see ../row-insert.ts for the CPU it saves).

/** A message granted for sending, recorded as `sending`: the columns it has (the others stay NULL). */
export const sendingRows = new RowInsert(
  messages,
  [
    "id",
    "environmentId",
    "transactionId",
    "subscriberId",
    "workflowKey",
    "stepId",
    "channel",
    "status",
    "content",
    "subject",
    "preview",
    "attempts",
    "createdAt",
    "updatedAt",
  ],
  { onConflict: "do nothing" },
);

/** A message that reaches its state without a send (skipped, failed, cancelled): any column may be set. */
export const finalRows = new RowInsert(
  messages,
  [
    "id",
    "environmentId",
    "transactionId",
    "subscriberId",
    "workflowKey",
    "stepId",
    "channel",
    "provider",
    "integrationId",
    "status",
    "providerMessageId",
    "to",
    "subject",
    "preview",
    "content",
    "errorCode",
    "errorMessage",
    "attempts",
    "createdAt",
    "updatedAt",
  ],
  { onConflict: "do nothing" },
);

// Both `do nothing`: a log shard's outbox may run a phase's D1 half again (LogShard.write), and each row's id is fixed when built.
export const captureRows = new RowInsert(
  sandboxMessages,
  ["id", "environmentId", "messageId", "channel", "provider", "to", "content", "createdAt"],
  { onConflict: "do nothing" },
);

export const eventRows = new RowInsert(messageEvents, ["id", "environmentId", "messageId", "status", "at", "detail"], {
  onConflict: "do nothing",
});

/** A phase's results (status, provider, error…) set on the messages they are about, by id. */
export const messageUpdates = new CaseUpdate(messages, "id");
