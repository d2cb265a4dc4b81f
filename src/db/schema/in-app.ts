import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { InAppContent } from "../../contract/in-app-content";
import { SESSION_PROFILE_WRITES } from "../../contract/in-app-settings";
import { environmentId, json, timestamps } from "./columns";

/**
 * A subscriber's in-app notification: the `in_app` message (same id) as its Inbox shows it.
 * Seen, read and archived are moments rather than flags, so the timeline and the feed agree.
 */
export const inAppNotifications = sqliteTable(
  "in_app_notifications",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    transactionId: text("transaction_id").notNull(),
    workflowKey: text("workflow_key").notNull(),
    stepId: text("step_id").notNull(),
    content: json<InAppContent>("content").notNull(),
    tags: json<string[]>("tags").notNull(),
    seenAt: integer("seen_at", { mode: "timestamp_ms" }),
    readAt: integer("read_at", { mode: "timestamp_ms" }),
    archivedAt: integer("archived_at", { mode: "timestamp_ms" }),
    snoozedUntil: integer("snoozed_until", { mode: "timestamp_ms" }),
    /** `primary` or `secondary`: the action the subscriber completed. */
    completedAction: text("completed_action"),
    ...timestamps,
  },
  (t) => [
    // The feed (newest first: ids are time-ordered, one page per seek) and the exact counts both read this index.
    index("in_app_env_subscriber_idx").on(t.environmentId, t.subscriberId, t.id),
  ],
);

/** Each environment's Inbox identity: the public application identifier and the HMAC secret for subscriber hashes. */
export const inAppSettings = sqliteTable("in_app_settings", {
  environmentId: text("environment_id").primaryKey(),
  applicationIdentifier: text("application_identifier").notNull().unique(),
  hmacSecret: text("hmac_secret").notNull(),
  hmacRequired: integer("hmac_required", { mode: "boolean" }).notNull(),
  sessionProfileWrites: text("session_profile_writes", { enum: SESSION_PROFILE_WRITES }).notNull().default("create_only"),
  /**
   * Sessions issued before this moment are over (a rotated secret, a changed hash requirement); null
   * on rows from before it was kept apart from `updatedAt`, which then stands for it.
   */
  sessionsResetAt: integer("sessions_reset_at", { mode: "timestamp_ms" }),
  ...timestamps,
});

/**
 * Subscribers with an open Inbox socket, kept by their InboxSocket object as sockets open and
 * close: a delivery reads it with its insert and calls only these subscribers' objects. A row
 * left by an object that died without a close costs one useless call, which removes it.
 */
export const inboxPresence = sqliteTable(
  "inbox_presence",
  {
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    sockets: integer("sockets").notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.subscriberId] })],
);
