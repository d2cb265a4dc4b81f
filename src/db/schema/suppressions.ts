import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { SUPPRESSION_REASONS } from "../../contract/suppressions";
import { environmentId } from "./columns";

export { SUPPRESSION_REASONS, type SuppressionReason } from "../../contract/suppressions";

/**
 * Addresses no step sends to again: a hard bounce, a complaint, an unsubscribe or a provider
 * answer that the recipient does not exist. Kept until lifted through the API, never expired.
 */
export const suppressions = sqliteTable(
  "suppressions",
  {
    environmentId: environmentId(),
    /** Normalised (see `normaliseAddress`): a lower-cased email, an E.164 phone, a push token or a chat webhook URL. */
    address: text("address").notNull(),
    channel: text("channel").notNull(),
    reason: text("reason", { enum: SUPPRESSION_REASONS }).notNull(),
    provider: text("provider"),
    messageId: text("message_id"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.address] }), index("suppressions_env_created_idx").on(t.environmentId, t.createdAt)],
);
