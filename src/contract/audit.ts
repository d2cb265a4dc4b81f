// The audit log's vocabulary, with no imports: the D1 schema, the zod schemas and the dashboard read it from here.

/** What an audit entry is about. */
export const AUDIT_RESOURCES = [
  "workflow",
  "variable",
  "integration",
  "environment",
  "api_key",
  "webhook_endpoint",
  "in_app_settings",
  "preference_link_settings",
  "promotion",
  "layout",
  "partial",
  "brand",
  "translation",
  "translation_settings",
  "tenant",
  "mcp_tool",
] as const;
export type AuditResource = (typeof AUDIT_RESOURCES)[number];

export const AUDIT_ACTIONS = [
  "created",
  "updated",
  "deleted",
  "activated",
  "deactivated",
  "reverted",
  "imported",
  "renamed",
  "revoked",
  "rotated",
  "promoted",
  "called",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
