import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { EventType } from "../../contract/event-types";
import { environmentId, json, timestamps } from "./columns";
import { ATTEMPT_STATUSES } from "../../contract/statuses";

/** Where an environment's outbound events go (Standard Webhooks), and the secret they are signed with. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    url: text("url").notNull(),
    /** The event types sent here; null means every type, present and future. */
    events: json<EventType[]>("events"),
    /** Only events of these tenants (`data.tenant`); null means every event, with a tenant or without. */
    tenants: json<string[]>("tenants"),
    description: text("description"),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    /** Why the endpoint was turned off by Clarion (`gone`, `failing`); null when a user did it or it is on. */
    disabledReason: text("disabled_reason"),
    /** The signing secret (`whsec_...`), encrypted at rest with the row as additional data. */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at", { mode: "timestamp_ms" }),
    /** The first failed attempt since the last success: five days of nothing but failures disable the endpoint. */
    failingSince: integer("failing_since", { mode: "timestamp_ms" }),
    ...timestamps,
  },
  (t) => [index("webhook_endpoints_env_idx").on(t.environmentId, t.createdAt)],
);

/** The environment's event log: each event once, with a stable id that every delivery of it carries. */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    type: text("type").$type<EventType>().notNull(),
    data: json<Record<string, unknown>>("data").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    /** When its deliveries were enqueued; null until then, so a dispatch lost in a crash is found again. */
    dispatchedAt: integer("dispatched_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("events_env_created_idx").on(t.environmentId, t.createdAt), index("events_created_idx").on(t.createdAt)],
);

/** One delivery attempt of an event to an endpoint: the delivery log. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    environmentId: environmentId(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").$type<EventType>().notNull(),
    attempt: integer("attempt").notNull(),
    status: text("status", { enum: ATTEMPT_STATUSES }).notNull(),
    responseStatus: integer("response_status"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    /** When the next try is due; null when this attempt was the last. */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("webhook_attempts_endpoint_idx").on(t.endpointId, t.createdAt),
    index("webhook_attempts_created_idx").on(t.createdAt),
    // The sweep's question per event and endpoint: has any attempt settled it or is one due?
    index("webhook_attempts_event_idx").on(t.eventId, t.endpointId),
  ],
);
