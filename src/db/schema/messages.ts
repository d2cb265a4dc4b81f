import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MESSAGE_STATUSES } from "../../contract/statuses";
import { environmentId, json, timestamps } from "./columns";

export { MESSAGE_STATUSES, type MessageStatus } from "../../contract/statuses";

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    transactionId: text("transaction_id").notNull(),
    subscriberId: text("subscriber_id").notNull(),
    workflowKey: text("workflow_key").notNull(),
    stepId: text("step_id").notNull(),
    channel: text("channel").notNull(),
    provider: text("provider"),
    integrationId: text("integration_id"),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    providerMessageId: text("provider_message_id"),
    to: text("to"),
    subject: text("subject"),
    preview: text("preview"),
    content: json<Record<string, unknown>>("content"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    attempts: integer("attempts").notNull().default(0),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("messages_send_identity_uq").on(t.environmentId, t.transactionId, t.subscriberId, t.stepId),
    // Covers GET /v1/messages/stats (a GROUP BY read from the index alone, the id to seek each
    // message's timeline) and lets the channel and provider filters of GET /v1/messages skip rows
    // without reading them.
    index("messages_env_created_idx").on(t.environmentId, t.createdAt, t.channel, t.provider, t.status, t.id),
    index("messages_env_subscriber_idx").on(t.environmentId, t.subscriberId, t.createdAt),
    index("messages_env_status_idx").on(t.environmentId, t.status, t.createdAt),
    index("messages_provider_message_idx").on(t.providerMessageId),
  ],
);

/** Append-only tracking log of a message. */
export const messageEvents = sqliteTable(
  "message_events",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    messageId: text("message_id").notNull(),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    detail: json<Record<string, unknown>>("detail"),
  },
  // A message's timeline in order; status rides along so GET /v1/messages/stats and the status
  // webhooks' duplicate check read the index without a row.
  (t) => [index("message_events_message_idx").on(t.messageId, t.at, t.status)],
);

/** What the local sandbox providers would have sent, so development needs no credentials. */
export const sandboxMessages = sqliteTable(
  "sandbox_messages",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    messageId: text("message_id").notNull(),
    channel: text("channel").notNull(),
    provider: text("provider").notNull(),
    to: text("to").notNull(),
    content: json<Record<string, unknown>>("content").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("sandbox_messages_env_created_idx").on(t.environmentId, t.createdAt)],
);
