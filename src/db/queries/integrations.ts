// The one credential store of integrations: their credentials are sealed here when the API writes
// them and opened here when the API shows them or delivery builds an adapter from them, so both
// sides bind each ciphertext to its row (environment and id) the same way.
import { and, asc, desc, eq } from "drizzle-orm";
import type { Channel } from "../../engine/steps";
import { CiphertextError, decryptJson, encryptJson, integrationAad } from "../../lib/secrets";
import type { Db } from "../client";
import { integrations } from "../schema";

/** An integration opened for sending: the shape providers/types.ts names `IntegrationConfig` (db/ sits below providers/). */
export interface OpenedIntegration {
  id: string;
  provider: string;
  channel: Channel;
  credentials: Record<string, unknown>;
  /** Set when the stored credentials do not decrypt for this row; `credentials` is then empty and nothing is sent. */
  credentialsError?: string;
  settings: Record<string, unknown>;
  baseUrl: string | null;
}

/** Clarion is the in-app channel's provider: every environment has it, with nothing to configure. */
export const IN_APP_INTEGRATION: OpenedIntegration = {
  id: "in_app",
  provider: "clarion",
  channel: "in_app",
  credentials: {},
  settings: {},
  baseUrl: null,
};

/**
 * An environment's active integrations in failover order (primary first, then by priority, lowest
 * first): the environment's own, and each tenant's apart, so that a tenant's never reaches a
 * message of another tenant or of none.
 */
export interface ActiveIntegrations {
  environment: Map<Channel, OpenedIntegration[]>;
  tenants: Map<string, Map<Channel, OpenedIntegration[]>>;
}

export async function activeIntegrations(db: Db, environmentId: string, encryptionKey: string | undefined): Promise<ActiveIntegrations> {
  const rows = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.environmentId, environmentId), eq(integrations.active, true)))
    .orderBy(desc(integrations.primary), asc(integrations.priority), asc(integrations.createdAt));
  return openIntegrations(rows, encryptionKey);
}

/** Active integrations read already, in failover order (delivery's one read, send-settings.ts), opened. */
export async function openIntegrations(rows: readonly Row[], encryptionKey: string | undefined): Promise<ActiveIntegrations> {
  const environment = new Map<Channel, OpenedIntegration[]>([["in_app", [IN_APP_INTEGRATION]]]);
  const tenants = new Map<string, Map<Channel, OpenedIntegration[]>>();
  for (const row of rows) {
    const config = await toConfig(row, encryptionKey);
    let byChannel = environment;
    if (row.tenantId !== null) {
      byChannel = tenants.get(row.tenantId) ?? new Map();
      tenants.set(row.tenantId, byChannel);
    }
    byChannel.set(config.channel, [...(byChannel.get(config.channel) ?? []), config]);
  }
  return { environment, tenants };
}

/** The failover chain per channel of a message for `tenantId`: the tenant's integrations, then the environment's. */
export function chainsFor(active: ActiveIntegrations, tenantId: string | null | undefined): Map<Channel, OpenedIntegration[]> {
  const own = tenantId ? active.tenants.get(tenantId) : undefined;
  if (!own) return active.environment;
  const chains = new Map(active.environment);
  for (const [channel, list] of own) chains.set(channel, [...list, ...(active.environment.get(channel) ?? [])]);
  return chains;
}

/** Any environment's integration by id: only for a provider's webhook, which names the integration and not the environment. */
export async function integrationById(db: Db, integrationId: string, encryptionKey: string | undefined) {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, integrationId)).limit(1);
  return row ? { ...(await toConfig(row, encryptionKey)), environmentId: row.environmentId } : null;
}

type Row = typeof integrations.$inferSelect;

/** Credentials as stored: encrypted, bound to the integration's environment and id. */
export const sealCredentials = (
  row: Pick<Row, "id" | "environmentId">,
  credentials: Record<string, unknown>,
  encryptionKey: string | undefined,
): Promise<string> => encryptJson(encryptionKey, credentials, integrationAad(row.environmentId, row.id));

/** A row's credentials in clear, or why they cannot be read (a ciphertext that is not this row's). */
export async function readCredentials(
  row: Pick<Row, "id" | "environmentId" | "credentials">,
  encryptionKey: string | undefined,
): Promise<{ ok: true; credentials: Record<string, unknown> } | { ok: false; reason: string }> {
  try {
    return { ok: true, credentials: await decryptJson(encryptionKey, row.credentials, integrationAad(row.environmentId, row.id)) };
  } catch (error) {
    if (error instanceof CiphertextError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** A stored integration as an adapter is built from it: credentials in clear, or `credentialsError` and none. */
export async function toConfig(row: Row, encryptionKey: string | undefined): Promise<OpenedIntegration> {
  const read = await readCredentials(row, encryptionKey);
  return {
    id: row.id,
    provider: row.provider,
    channel: row.channel as Channel,
    credentials: read.ok ? read.credentials : {},
    ...(read.ok ? {} : { credentialsError: read.reason }),
    settings: row.settings,
    baseUrl: row.baseUrl,
  };
}
