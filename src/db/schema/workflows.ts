import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Step } from "../../engine/steps";
import { UNSUBSCRIBE_SCOPES } from "../../contract/unsubscribe";
import { environmentId, json, timestamps } from "./columns";

export const workflows = sqliteTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    active: integer("active", { mode: "boolean" }).notNull(),
    critical: integer("critical", { mode: "boolean" }).notNull(),
    /** What a one-click unsubscribe from this workflow's emails turns off (critical workflows: nothing). */
    unsubscribe: text("unsubscribe", { enum: UNSUBSCRIBE_SCOPES }).notNull().default("workflow"),
    tags: json<string[]>("tags").notNull(),
    payloadSchema: json<Record<string, unknown>>("payload_schema"),
    /** Validated by the workflow step schema (engine/steps.ts) before every write. */
    steps: json<Step[]>("steps").notNull(),
    /** The number of its latest version (workflow_versions); `If-Match` compares against it. */
    version: integer("version").notNull().default(0),
    ...timestamps,
    /**
     * Set by DELETE: the row stays as a tombstone so triggers accepted before the delete still run
     * the steps they were accepted for; the API no longer sees it, and its key is free again.
     */
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
    /**
     * When a trigger of it was last accepted, written by the accept path at most once a minute per
     * isolate (features/workflows/last-triggered.ts), so the list reads it here instead of asking
     * every log shard. Not content: no version, diff, export or audit entry carries it. NULL: not
     * triggered since the column came, and the list asks the log for those rows.
     */
    lastTriggeredAt: integer("last_triggered_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    uniqueIndex("workflows_env_key_live_uq").on(t.environmentId, t.key).where(sql`deleted_at IS NULL`),
    index("workflows_env_deleted_idx").on(t.environmentId, t.deletedAt),
  ],
);
