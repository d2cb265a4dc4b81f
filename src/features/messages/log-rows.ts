import type { messages } from "../../db/schema";
import type { LogMessage } from "../../durable-objects/client/log-store";

/** A message as D1 answers it: the shape every read of messages works in, whichever store held it. */
export type MessageRow = typeof messages.$inferSelect;

/** A log message in D1's shape (times as Dates), so pages merge rows of both stores. */
export const fromLog = (m: LogMessage): MessageRow => ({
  id: m.id,
  environmentId: m.environmentId,
  transactionId: m.transactionId,
  subscriberId: m.subscriberId,
  workflowKey: m.workflowKey,
  stepId: m.stepId,
  channel: m.channel,
  provider: m.provider,
  integrationId: m.integrationId,
  status: m.status,
  providerMessageId: m.providerMessageId,
  to: m.to,
  subject: m.subject,
  preview: m.preview,
  content: m.content,
  errorCode: m.errorCode,
  errorMessage: m.errorMessage,
  attempts: m.attempts,
  createdAt: new Date(m.createdAt),
  updatedAt: new Date(m.updatedAt),
});

/**
 * Newest first by (createdAt, id), the keyset of every page of messages: the order the log's
 * shards and D1's legacy rows are merged in, so one cursor walks both.
 */
export const newestFirst = (a: MessageRow, b: MessageRow) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
