import type { components } from "../../api/openapi";
import { useQueryFilters } from "../../ui/use-query-filters";

export type AuditEntry = components["schemas"]["AuditEntry"];
export type Resource = AuditEntry["resource"];
export type Action = AuditEntry["action"];

// Records, so the compiler says when the API gains a resource or an action the filters lack.
export const RESOURCE_LABELS: Record<Resource, string> = {
  workflow: "Workflows",
  tenant: "Tenants",
  variable: "Variables",
  integration: "Integrations",
  environment: "Environments",
  api_key: "API keys",
  webhook_endpoint: "Webhook endpoints",
  in_app_settings: "In-app settings",
  preference_link_settings: "Preference page settings",
  promotion: "Promotions",
  layout: "Layouts",
  partial: "Partials",
  brand: "Brand",
  translation: "Translations",
  translation_settings: "Translation settings",
  mcp_tool: "MCP tool calls",
};
export const ACTION_LABELS: Record<Action, string> = {
  created: "created",
  updated: "updated",
  deleted: "deleted",
  activated: "activated",
  deactivated: "deactivated",
  reverted: "reverted",
  imported: "imported",
  renamed: "renamed",
  revoked: "revoked",
  rotated: "rotated",
  promoted: "promoted",
  called: "called",
};

/** The filters, kept in the address so a link shares them; `scope=all` (the admin's) reads every environment. */
export const FILTER_KEYS = ["resource", "action", "actor", "after", "before", "scope", "environment"] as const;
export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

export function useAuditFilters() {
  const { filters, update } = useQueryFilters(FILTER_KEYS);
  return { filters, update: (changes: Filters) => update(changes) };
}

const isResource = (value: string | undefined): value is Resource => value !== undefined && Object.hasOwn(RESOURCE_LABELS, value);
const isAction = (value: string | undefined): value is Action => value !== undefined && Object.hasOwn(ACTION_LABELS, value);
/** A `datetime-local` value (the browser's time zone) as the instant the API takes. */
const instant = (value: string | undefined) => {
  const time = value ? new Date(value).getTime() : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
};

/** The API's query for these filters; what does not parse is left out rather than sent to be refused. */
export const auditQuery = (f: Filters) => ({
  resource: isResource(f.resource) ? f.resource : undefined,
  action: isAction(f.action) ? f.action : undefined,
  actor: f.actor?.trim() || undefined,
  after: instant(f.after),
  before: instant(f.before),
});
