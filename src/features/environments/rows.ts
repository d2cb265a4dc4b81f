import type { apiKeys, environments } from "../../db/schema";
import type { ApiKey, ApiKeyCreated, Environment } from "./schemas";

export type EnvironmentRow = typeof environments.$inferSelect;
export type KeyRow = typeof apiKeys.$inferSelect;

export const toEnvironment = (row: EnvironmentRow): Environment => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  createdAt: row.createdAt.toISOString(),
});

const iso = (date: Date | null) => date?.toISOString() ?? null;

function statusOf(row: KeyRow, now: number): ApiKey["status"] {
  if (row.revokedAt) return "revoked";
  if (!row.expiresAt) return "active";
  return row.expiresAt.getTime() <= now ? "expired" : "expiring";
}

export const toApiKey = (row: KeyRow, slug: string, now = Date.now()): ApiKey => ({
  id: row.id,
  environment: slug,
  name: row.name,
  prefix: row.prefix,
  status: statusOf(row, now),
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: iso(row.lastUsedAt),
  expiresAt: iso(row.expiresAt),
  revokedAt: iso(row.revokedAt),
  kind: row.kind,
  scopes: row.scopes ?? [],
});

export type RevokeOutcome = { status: "revoked"; key: ApiKey } | { status: "not_found" };
export type RotateOutcome =
  | { status: "rotated"; key: ApiKeyCreated; previous: ApiKey }
  | { status: "not_found" }
  | { status: "revoked" }
  | { status: "expired" };

/** A key as the audit log keeps it: its API view, which never holds the key, without the moving `status`. */
export const keyView = ({ status: _s, lastUsedAt: _l, ...view }: ApiKey) => view;
