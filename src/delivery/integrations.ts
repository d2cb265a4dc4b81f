import { and, asc, desc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { integrations } from "../db/schema";
import type { Channel } from "../engine/steps";
import { CiphertextError, decryptJson, integrationAad } from "../lib/secrets";
import type { IntegrationConfig } from "../providers/types";

/** Clarion is the in-app channel's provider: every environment has it, with nothing to configure. */
export const IN_APP_INTEGRATION: IntegrationConfig = {
  id: "in_app",
  provider: "clarion",
  channel: "in_app",
  credentials: {},
  settings: {},
  baseUrl: null,
};

/** The active integrations of an environment in failover order: primary first, then by priority (lowest first). */
export async function activeIntegrations(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const rows = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.environmentId, environmentId), eq(integrations.active, true)))
    .orderBy(desc(integrations.primary), asc(integrations.priority), asc(integrations.createdAt));
  const byChannel = new Map<Channel, IntegrationConfig[]>([["in_app", [IN_APP_INTEGRATION]]]);
  for (const row of rows) {
    const config = await toConfig(row, encryptionKey);
    byChannel.set(config.channel, [...(byChannel.get(config.channel) ?? []), config]);
  }
  return byChannel;
}

export async function integrationById(db: Db, integrationId: string, encryptionKey: string | undefined) {
  const [row] = await db.select().from(integrations).where(eq(integrations.id, integrationId)).limit(1);
  return row ? { ...(await toConfig(row, encryptionKey)), environmentId: row.environmentId } : null;
}

type Row = typeof integrations.$inferSelect;

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
export async function toConfig(row: Row, encryptionKey: string | undefined): Promise<IntegrationConfig> {
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
