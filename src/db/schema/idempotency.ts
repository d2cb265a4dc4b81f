import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json } from "./columns";

/** Hours a stored answer is replayed for an `Idempotency-Key`; after that the key may be used again. */
export const IDEMPOTENCY_KEY_HOURS = 24;

/**
 * One row per `Idempotency-Key` and scope (`env:<id>`, or `admin` for the admin API). The row is
 * the claim: inserted before the handler runs (`response_status` null while in flight), completed
 * with the answer, deleted if the answer is not one to replay. Purged by retention after the window.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and canonical JSON body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    responseStatus: integer("response_status"),
    responseHeaders: json<Record<string, string>>("response_headers"),
    responseBody: text("response_body"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);
