import { and, eq, isNull } from "drizzle-orm";
import { createDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";

const CACHE_TTL_MS = 60_000;
const cache = new Map<string, { environmentId: string; expiresAt: number }>();

/**
 * Finds the environment an API key belongs to. Hits stay in the isolate for a minute so the
 * trigger path does not read D1 on every request; a revoked key therefore stops working
 * within a minute.
 */
export async function environmentForKey(d1: D1Database, key: string, now = Date.now()): Promise<string | null> {
  const hash = await sha256Hex(key);
  const hit = cache.get(hash);
  if (hit && hit.expiresAt > now) return hit.environmentId;
  const [row] = await createDb(d1)
    .select({ environmentId: apiKeys.environmentId })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) {
    cache.delete(hash);
    return null;
  }
  cache.set(hash, { environmentId: row.environmentId, expiresAt: now + CACHE_TTL_MS });
  return row.environmentId;
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** `ck_<environment slug>_<32 random base62 characters>`; the first 12 characters are shown as its prefix. */
export function generateApiKey(slug: string): { key: string; prefix: string } {
  const random = crypto.getRandomValues(new Uint8Array(32));
  const body = Array.from(random, (b) => ALPHABET[b % ALPHABET.length]).join("");
  const key = `ck_${slug}_${body}`;
  return { key, prefix: key.slice(0, 12) };
}
