import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Hours a webhook receipt is kept: longer than any provider retries a delivery (SendGrid: 72 hours). */
export const WEBHOOK_RECEIPT_HOURS = 72;

/**
 * Provider webhook deliveries and events already applied, by the provider's own id: a replay
 * inside the window finds its key here and changes nothing. Purged by retention after the window.
 */
export const webhookReceipts = sqliteTable(
  "webhook_receipts",
  {
    integrationId: text("integration_id").notNull(),
    key: text("key").notNull(),
    receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.integrationId, t.key] }), index("webhook_receipts_received_idx").on(t.receivedAt)],
);
