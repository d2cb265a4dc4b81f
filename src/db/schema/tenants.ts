import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { SubscriberPreferences } from "../../contract/preferences";
import type { TenantBrand, TenantPreferences } from "../../contract/tenants";
import { environmentId, json, timestamps } from "./columns";

/**
 * A customer of the environment's product (Novu's context `tenant`): its name and data for
 * templates, the brand fields it overrides, and the defaults its subscribers get. Keyed by the
 * caller's id, as subscribers are: triggers and messages name it by that id.
 */
export const tenants = sqliteTable(
  "tenants",
  {
    environmentId: environmentId(),
    tenantId: text("tenant_id").notNull(),
    name: text("name"),
    data: json<Record<string, unknown>>("data"),
    brand: json<TenantBrand>("brand"),
    preferences: json<TenantPreferences>("preferences"),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.tenantId] }), index("tenants_env_name_idx").on(t.environmentId, t.name)],
);

/** A subscriber's preferences inside one tenant: they beat the subscriber's own and the tenant's defaults. */
export const subscriberTenantPreferences = sqliteTable(
  "subscriber_tenant_preferences",
  {
    environmentId: environmentId(),
    subscriberId: text("subscriber_id").notNull(),
    tenantId: text("tenant_id").notNull(),
    preferences: json<SubscriberPreferences>("preferences").notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.environmentId, t.subscriberId, t.tenantId] }),
    // Deleting a tenant removes its rows by this index.
    index("subscriber_tenant_prefs_tenant_idx").on(t.environmentId, t.tenantId),
  ],
);
