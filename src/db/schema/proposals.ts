import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { PROPOSAL_RESOURCES, PROPOSAL_STATUSES } from "../../contract/proposals";
import { environmentId, json } from "./columns";

/**
 * A change to a workflow, layout, partial or locale's translations that waits for a person: the
 * content as proposed, checked and diffed against the version it was made from when it was
 * made. Applying it saves that content as a save with `If-Match: baseVersion` would; nothing
 * else changes the live resource, so an agent or a CI job can propose but never publish.
 */
export const proposals = sqliteTable(
  "proposals",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    resource: text("resource", { enum: PROPOSAL_RESOURCES }).notNull(),
    /** The workflow's, layout's or partial's key, or the locale. */
    key: text("key").notNull(),
    status: text("status", { enum: PROPOSAL_STATUSES }).notNull(),
    /** The version the proposal was made from; null when the resource did not exist (applying creates it). */
    baseVersion: integer("base_version"),
    /** The full content as proposed (a patch is applied when the proposal is made). */
    content: json<unknown>("content").notNull(),
    /** The RFC 6902 patch sent instead of content, kept as sent. */
    patch: json<unknown[]>("patch"),
    note: text("note"),
    /** RFC 6902 from the base version's content to the proposed content. */
    diff: json<unknown[]>("diff").notNull(),
    validation: json<{ ok: boolean; errors: { path: string; message: string }[] }>("validation").notNull(),
    preview: json<unknown>("preview"),
    proposedByType: text("proposed_by_type", { enum: ["key", "admin", "dashboard"] }).notNull(),
    proposedById: text("proposed_by_id"),
    proposedByName: text("proposed_by_name").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    decidedByType: text("decided_by_type", { enum: ["key", "admin", "dashboard"] }),
    decidedById: text("decided_by_id"),
    decidedByName: text("decided_by_name"),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
    /** The version applying it made (or found, when the content was already current). */
    appliedVersion: integer("applied_version"),
    rejectReason: text("reject_reason"),
  },
  (t) => [index("proposals_env_status_idx").on(t.environmentId, t.status, t.id), index("proposals_env_id_idx").on(t.environmentId, t.id)],
);
