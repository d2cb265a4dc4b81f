import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { UnsubscribeScope } from "../../contract/unsubscribe";
import type { Step } from "../../engine/steps";
import { environmentId, json } from "./columns";

/** A workflow's content, as `PUT /v1/workflows/{key}` takes it. */
export interface WorkflowDefinition {
  key: string;
  name: string;
  description: string | null;
  active: boolean;
  critical: boolean;
  unsubscribe: UnsubscribeScope;
  tags: string[];
  payloadSchema: Record<string, unknown> | null;
  steps: Step[];
}

/**
 * Every state a workflow has had, never updated: written in the same batch as the workflow's own
 * change, numbered per workflow (the row's `version` is its latest number).
 */
export const workflowVersions = sqliteTable(
  "workflow_versions",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    workflowId: text("workflow_id").notNull(),
    workflowKey: text("workflow_key").notNull(),
    version: integer("version").notNull(),
    /** What was saved (the workflow as `PUT` takes it); for a delete, the workflow as it was deleted. */
    definition: json<WorkflowDefinition>("definition").notNull(),
    action: text("action", { enum: ["created", "updated", "deleted", "reverted"] }).notNull(),
    authorType: text("author_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    summary: text("summary").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("workflow_versions_wf_version_uq").on(t.workflowId, t.version),
    index("workflow_versions_env_key_idx").on(t.environmentId, t.workflowKey),
  ],
);
