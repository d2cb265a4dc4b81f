import { integer, sqliteTable, text, uniqueIndex, index } from "drizzle-orm/sqlite-core";
import { API_KEY_KINDS, type McpScope } from "../../contract/api-keys";
import { environmentId, json } from "./columns";

export const environments = sqliteTable(
  "environments",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [uniqueIndex("environments_slug_uq").on(t.slug)],
);

/**
 * Only a SHA-256 hash of each key is kept; `prefix` lets a person recognise a key. A rotated key
 * keeps working until `expiresAt`; `lastUsedAt` is written at most once a minute per isolate. An
 * `mcp` key works only at `/mcp`, for the tools of its `scopes` (null for an `api` key: all of the API).
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId().references(() => environments.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    kind: text("kind", { enum: API_KEY_KINDS }).notNull().default("api"),
    scopes: json<McpScope[]>("scopes"),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.hash), index("api_keys_env_idx").on(t.environmentId)],
);

/**
 * A deleted environment whose log erasure is not yet on the Queue: written in the deletion's own
 * batch, removed once the erasure jobs are enqueued. If that send fails after the batch, the
 * cron enqueues them (features/environments/erasure-repository.ts), so the log is never left behind.
 */
export const environmentErasures = sqliteTable("environment_erasures", {
  environmentId: text("environment_id").primaryKey(),
  deletedAt: integer("deleted_at", { mode: "timestamp_ms" }).notNull(),
});
