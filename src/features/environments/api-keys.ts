import { and, eq, isNull } from "drizzle-orm";
import { createDb } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";

const CACHE_TTL_MS = 60_000;

interface CachedKey {
  keyId: string;
  environmentId: string;
  /** When the key itself stops working (a rotated key); null while it has no end. */
  keyExpiresAt: number | null;
  /** When this isolate asks D1 again. */
  cachedUntil: number;
}

const cache = new Map<string, CachedKey>();

export interface KeyLookup {
  environmentId: string;
  /** A D1 write to record the use, when the key has not been seen in this isolate for a minute. */
  touch?: Promise<unknown>;
}

/**
 * Finds the environment an API key belongs to. Hits stay in the isolate for a minute so the
 * trigger path does not read D1 on every request; a key revoked elsewhere therefore stops
 * working within a minute (at once in the isolate that revoked it, see `forgetApiKey`). The
 * minute also bounds `last_used_at` writes: one per key per isolate per minute, never one per request.
 */
export async function environmentForKey(d1: D1Database, key: string, now = Date.now()): Promise<KeyLookup | null> {
  const hash = await sha256Hex(key);
  const hit = cache.get(hash);
  if (hit && hit.cachedUntil > now) {
    if (hit.keyExpiresAt !== null && hit.keyExpiresAt <= now) return null;
    return { environmentId: hit.environmentId };
  }
  const db = createDb(d1);
  const [row] = await db
    .select({ id: apiKeys.id, environmentId: apiKeys.environmentId, expiresAt: apiKeys.expiresAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const keyExpiresAt = row?.expiresAt?.getTime() ?? null;
  if (!row || (keyExpiresAt !== null && keyExpiresAt <= now)) {
    cache.delete(hash);
    return null;
  }
  cache.set(hash, { keyId: row.id, environmentId: row.environmentId, keyExpiresAt, cachedUntil: now + CACHE_TTL_MS });
  const touch = db
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(apiKeys.id, row.id))
    .run();
  return { environmentId: row.environmentId, touch };
}

/** Drops keys from this isolate's cache at once (a revocation, a deleted environment); other isolates follow within a minute. */
export function forgetApiKeys(matches: (entry: { keyId: string; environmentId: string }) => boolean): void {
  for (const [hash, entry] of cache) if (matches(entry)) cache.delete(hash);
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

const randomBody = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => ALPHABET[b % ALPHABET.length]).join("");

/** `ck_<environment slug>_<32 random base62 characters>`; the first 12 characters are shown as its prefix. */
export function generateApiKey(slug: string): { key: string; prefix: string } {
  const key = `ck_${slug}_${randomBody()}`;
  return { key, prefix: key.slice(0, 12) };
}

/** Admin credentials are told apart from environment keys by their prefix alone. */
export const ADMIN_KEY_PREFIX = "clarion_admin_";

export const generateAdminKey = () => `${ADMIN_KEY_PREFIX}${randomBody()}`;
