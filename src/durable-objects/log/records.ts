import { MESSAGE_STATUSES, type MessageStatus } from "../../contract/statuses";
import type { LogEvent, LogMessage, MessageAbout, MessageChanges } from "./rows";
import type { EventRecord, MessageRecord } from "./schema";
import { objectAt, PART_ROWS } from "../../lib/json-parts";

/** One bit per status, so the states a message reached fold into one integer (the stats read it). */
export const bitOf = (status: string) => {
  const i = MESSAGE_STATUSES.indexOf(status as MessageStatus);
  return i < 0 ? 0 : 1 << i;
};

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export const toMessage = (r: MessageRecord): LogMessage => ({
  id: r.id,
  environmentId: r.env,
  transactionId: r.tx,
  subscriberId: r.subscriber,
  workflowKey: r.workflow,
  stepId: r.step,
  channel: r.channel,
  provider: r.provider,
  integrationId: r.integration,
  status: r.status as MessageStatus,
  providerMessageId: r.provider_message_id,
  to: r.to,
  subject: r.subject,
  preview: r.preview,
  content: parsed<Record<string, unknown>>(r.content),
  errorCode: r.error_code,
  errorMessage: r.error_message,
  attempts: r.attempts,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  workflowVersion: r.workflow_version ?? null,
  layoutVersion: r.layout_version ?? null,
  tenantId: r.tenant ?? null,
  context: parsed<Record<string, string>>(r.context ?? null),
  ...(r.watched ? { watched: true } : {}),
});

export const toEvent = (r: EventRecord): LogEvent => ({
  id: r.id,
  environmentId: r.env,
  messageId: r.message_id,
  status: r.status as MessageStatus,
  at: r.at,
  detail: parsed<Record<string, unknown>>(r.detail),
});

/** The column each changeable field is stored in. */
export const CHANGE_COLUMNS: Record<keyof MessageChanges, string> = {
  status: "status",
  provider: "provider",
  integrationId: "integration",
  providerMessageId: "provider_message_id",
  to: '"to"',
  subject: "subject",
  preview: "preview",
  content: "content",
  errorCode: "error_code",
  errorMessage: "error_message",
  attempts: "attempts",
  updatedAt: "updated_at",
};

/** A change's value as SQLite stores it (objects as JSON text). */
export const stored = (value: unknown): SqlStorageValue =>
  value === undefined || value === null ? null : typeof value === "object" ? JSON.stringify(value) : (value as SqlStorageValue);

/** The columns of a new message's row, in the order `messageValues` gives their values. */
export const MESSAGE_COLUMN_LIST = [
  "id",
  "env",
  "tx",
  "subscriber",
  "workflow",
  "step",
  "channel",
  "provider",
  "integration",
  "status",
  "provider_message_id",
  "to",
  "subject",
  "preview",
  "content",
  "error_code",
  "error_message",
  "attempts",
  "states",
  "created_at",
  "updated_at",
  "workflow_version",
  "layout_version",
  "tenant",
  "context",
  "watched",
] as const;

/** The message columns holding a JSON object: `messageValues` gives the object, MESSAGES_INSERT stores its text. */
const OBJECT_COLUMNS: ReadonlySet<(typeof MESSAGE_COLUMN_LIST)[number]> = new Set(["content", "context"]);

/**
 * A write's new messages in one statement: one JSON array of `messageValues` rows. Answers the
 * ids it inserted, each with `early`: 1 when timeline entries of it were stored before its row
 * (run before the write's own entries are appended); a message whose id or send identity is
 * stored already is left as it was.
 */
export const MESSAGES_INSERT = `${PART_ROWS} INSERT INTO messages (${MESSAGE_COLUMN_LIST.map((c) => `"${c}"`).join(", ")})
  SELECT ${MESSAGE_COLUMN_LIST.map((c, i) => (OBJECT_COLUMNS.has(c) ? objectAt(i) : `v ->> ${i}`)).join(", ")} FROM part WHERE true
  ON CONFLICT DO NOTHING RETURNING id, EXISTS (SELECT 1 FROM message_events WHERE message_id = messages.id) AS early`;

/**
 * The messages of (transactionId, subscriberId) pairs (one JSON array) in an environment. CROSS
 * JOIN keeps the pairs the outer loop, each seeking the identity index: left to itself, the
 * planner scans the environment's messages once per pair.
 */
export const RECIPIENTS_MESSAGES = `SELECT m.* FROM jsonb_each(?) AS a CROSS JOIN messages AS m
  ON m.env = ? AND m.tx = a.value ->> 0 AND m.subscriber = a.value ->> 1 ORDER BY a.key, m.step`;

/** A new message's row as MESSAGES_INSERT takes it: a column's value, or the object a JSON column stores. */
export type MessageRow = (SqlStorageValue | Readonly<Record<string, unknown>>)[];

/**
 * `reached`: the states the write's timeline entries reach on it, set with its row rather than by
 * a later UPDATE. The content and context are the objects (OBJECT_COLUMNS).
 */
export const messageValues = (m: LogMessage, reached = 0): MessageRow => [
  m.id,
  m.environmentId,
  m.transactionId,
  m.subscriberId,
  m.workflowKey,
  m.stepId,
  m.channel,
  m.provider,
  m.integrationId,
  m.status,
  m.providerMessageId,
  m.to,
  m.subject,
  m.preview,
  m.content ?? null,
  m.errorCode,
  m.errorMessage,
  m.attempts,
  bitOf(m.status) | reached,
  m.createdAt,
  m.updatedAt,
  m.workflowVersion ?? null,
  m.layoutVersion ?? null,
  m.tenantId ?? null,
  m.context ?? null,
  m.watched ? 1 : null,
];

export const ABOUT_COLUMNS = "id, env, tx, subscriber, workflow, step, channel, provider, tenant";
export type MessageAboutRecord = Pick<
  MessageRecord,
  "id" | "env" | "tx" | "subscriber" | "workflow" | "step" | "channel" | "provider" | "tenant"
>;
export const aboutOf = (r: MessageAboutRecord): MessageAbout => ({
  id: r.id,
  environmentId: r.env,
  transactionId: r.tx,
  subscriberId: r.subscriber,
  workflowKey: r.workflow,
  stepId: r.step,
  channel: r.channel,
  provider: r.provider,
  tenantId: r.tenant ?? null,
});
