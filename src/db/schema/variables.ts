import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { environmentId, timestamps } from "./columns";

export const variables = sqliteTable(
  "variables",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    key: text("key").notNull(),
    value: text("value").notNull(),
    secret: integer("secret", { mode: "boolean" }).notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("variables_env_key_uq").on(t.environmentId, t.key)],
);
