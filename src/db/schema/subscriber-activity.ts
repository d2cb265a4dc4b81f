import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { PREFERENCE_CHANGE_REASONS, STORED_ACTIVITY_TYPES } from "../../contract/subscriber-activity";
import type { PreferenceChange } from "../../contract/preferences";
import { environmentId, json } from "./columns";

/**
 * A subscriber's timeline: each row is written in the D1 batch that made the change it records,
 * and deleted with the subscriber on erasure. Preference changes keep only the flags that changed.
 */
export const subscriberActivity = sqliteTable(
  "subscriber_activity",
  {
    /** `act_` + UUIDv7: time-ordered, the timeline's tie-break. */
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    type: text("type", { enum: STORED_ACTIVITY_TYPES }).notNull(),
    reason: text("reason", { enum: PREFERENCE_CHANGE_REASONS }),
    preferences: json<PreferenceChange>("preferences"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("subscriber_activity_timeline_idx").on(t.environmentId, t.subscriberId, t.createdAt, t.id)],
);
