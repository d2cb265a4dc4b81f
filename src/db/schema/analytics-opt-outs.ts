import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { PREFERENCE_CHANGE_REASONS } from "../../contract/subscriber-activity";
import { environmentId } from "./columns";

/**
 * Opt-outs counted per hour, written in the D1 batch of the preference change that made them. No
 * subscriber column: the counts outlive the subscriber's erasure and the messages' retention (kept
 * ANALYTICS_RETENTION_DAYS). One opt-out is one channel flag turned off, for every workflow
 * (`workflow` empty) or for one.
 */
export const analyticsOptOuts = sqliteTable(
  "analytics_opt_outs",
  {
    environmentId: environmentId(),
    /** Start of the UTC hour of the change, in ms. */
    hour: integer("hour").notNull(),
    workflow: text("workflow").notNull(),
    channel: text("channel").notNull(),
    reason: text("reason", { enum: PREFERENCE_CHANGE_REASONS }).notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.hour, t.workflow, t.channel, t.reason] })],
);
