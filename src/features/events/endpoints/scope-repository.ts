import { and, eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { webhookEndpoints } from "../../../db/schema";
import { decryptJson, encryptJson, webhookEndpointAad } from "../../../lib/secrets";
import type { EndpointRow as Row } from "./rows";

/** One environment's endpoints: the predicate by id, and the sealing of secrets to their row. */
export function endpointScope(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byId = (id: string) => and(eq(webhookEndpoints.environmentId, environmentId), eq(webhookEndpoints.id, id));
  const aad = (id: string) => webhookEndpointAad(environmentId, id);
  const seal = (id: string, secret: string) => encryptJson(encryptionKey, secret, aad(id));
  const open = (id: string, sealed: string) => decryptJson<string>(encryptionKey, sealed, aad(id));

  async function find(id: string): Promise<Row | undefined> {
    const [row] = await db.select().from(webhookEndpoints).where(byId(id)).limit(1);
    return row;
  }

  /** The old secret while its overlap lasts; null once it has ended. */
  async function openPrevious(row: Row, now: Date): Promise<{ secret: string; expiresAt: Date } | null> {
    if (!row.previousSecret || !row.previousSecretExpiresAt || row.previousSecretExpiresAt <= now) return null;
    return { secret: await open(row.id, row.previousSecret), expiresAt: row.previousSecretExpiresAt };
  }

  return { db, environmentId, byId, seal, open, find, openPrevious };
}

export type EndpointScope = ReturnType<typeof endpointScope>;
