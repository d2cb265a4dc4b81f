import type { EventType } from "../../../contract/event-types";
import type { webhookEndpoints } from "../../../db/schema";
import { maskedUrl, withoutPassword } from "./masked-url";
import type { WebhookEndpoint } from "./schemas";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
type Row = EndpointRow;

export const toWebhookEndpoint = (row: Row): WebhookEndpoint => ({
  id: row.id,
  // Endpoints saved before credentials in URLs were refused may hold one: never shown again.
  url: withoutPassword(row.url),
  events: row.events ?? null,
  tenants: row.tenants ?? null,
  description: row.description ?? null,
  enabled: row.enabled,
  disabledReason: row.disabledReason === "gone" || row.disabledReason === "failing" ? row.disabledReason : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * What the audit log keeps of an endpoint: its API view (which never holds the secret), without
 * the timestamps, and its URL without query values (receivers put tokens there; the log keeps a year).
 */
export const audited = (row: Row) => {
  const { createdAt: _c, updatedAt: _u, ...view } = toWebhookEndpoint(row);
  return { ...view, url: maskedUrl(view.url) };
};

/** Whether an endpoint takes events of `type`: null subscribes to every type. */
export const takesEvent = (row: Pick<Row, "events">, type: EventType) => row.events === null || row.events.includes(type);

/** Whether an endpoint takes an event of this tenant (null: an event of none): an endpoint without a tenant list takes all. */
export const takesTenant = (row: Pick<Row, "tenants">, tenant: string | null) =>
  row.tenants === null || (tenant !== null && row.tenants.includes(tenant));

/** An endpoint ready to send to: its row and the secrets that sign right now (the newest first). */
export interface SendableEndpoint {
  row: Row;
  secrets: string[];
}
