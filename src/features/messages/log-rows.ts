import type { messages } from "../../db/schema";
import type { LogMessage, LogStore } from "../../durable-objects/client/log-store";
import type { Message } from "./schemas";

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

/** Messages read per call while walking a subscriber's log. */
const SUBSCRIBER_PAGE = 500;
/** How far back a read walks a subscriber's log by default: their newest messages up to this many. */
const SUBSCRIBER_MESSAGES_MAX = 10_000;

/**
 * A subscriber's log messages (id and trigger), newest first from `since` on, walked in pages of
 * their one shard: for the reads that need all of them (their triggers, their erasure).
 */
export async function subscriberMessages(
  logs: LogStore,
  environmentId: string,
  subscriberId: string,
  since?: string,
  max = SUBSCRIBER_MESSAGES_MAX,
): Promise<{ id: string; transactionId: string }[]> {
  const found: { id: string; transactionId: string }[] = [];
  let before: [number, string] | undefined;
  while (found.length < max) {
    const page = await logs.list({
      environmentId,
      subscriberId,
      limit: SUBSCRIBER_PAGE,
      ...(since ? { since: Date.parse(since) } : {}),
      ...(before ? { before } : {}),
    });
    for (const m of page) found.push({ id: m.id, transactionId: m.transactionId });
    const last = page.at(-1);
    if (page.length < SUBSCRIBER_PAGE || !last) break;
    before = [last.createdAt, last.id];
  }
  return found;
}

/** A message's tenant and context, kept on log rows only (D1's legacy rows predate tenants). */
export interface Tenancy {
  tenant: string | null;
  context: Record<string, string> | null;
}
export const NO_TENANCY: Tenancy = { tenant: null, context: null };
export const tenancyOf = (m: { tenantId?: string | null; context?: Record<string, string> | null }): Tenancy => ({
  tenant: m.tenantId ?? null,
  context: m.context ?? null,
});

/** A message as the API shows it, with the versions it was sent from. */
export const toMessage = (
  row: MessageRow,
  workflowVersion: number | null,
  layoutVersion: number | null,
  tenancy: Tenancy = NO_TENANCY,
): Message => ({
  id: row.id,
  transactionId: row.transactionId,
  subscriberId: row.subscriberId,
  workflow: row.workflowKey,
  workflowVersion,
  layoutVersion,
  tenant: tenancy.tenant,
  context: tenancy.context,
  stepId: row.stepId,
  channel: row.channel as Message["channel"],
  provider: row.provider,
  integrationId: row.integrationId,
  status: row.status,
  providerMessageId: row.providerMessageId,
  to: row.to,
  subject: row.subject,
  preview: row.preview,
  error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
  attempts: row.attempts,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
