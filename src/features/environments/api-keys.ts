import { and, eq, isNull } from "drizzle-orm";
import { createDb } from "../../db/client";
import { apiKeys, environments } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";

const CACHE_TTL_MS = 60_000;
/** How long a key that matched nothing is answered from memory: a key created in that time works once it passes. */
export const UNKNOWN_KEY_TTL_MS = 10_000;
/** Bounds the memory a flood of distinct bad keys can take; the oldest entries go first. */
const UNKNOWN_KEY_CACHE_SIZE = 10_000;

export interface KeyOwner {
  environmentId: string;
  slug: string;
  /** SHA-256 of the key: what the per-key rate limit counts under, never the key itself. */
  keyHash: string;
}

const cache = new Map<string, { owner: Omit<KeyOwner, "keyHash">; expiresAt: number }>();
const unknown = new Map<string, number>();

function rememberUnknown(hash: string, now: number) {
  unknown.delete(hash);
  if (unknown.size >= UNKNOWN_KEY_CACHE_SIZE) {
    // Maps iterate in insertion order: the first entry is the oldest.
    const oldest = unknown.keys().next().value;
    if (oldest !== undefined) unknown.delete(oldest);
  }
  unknown.set(hash, now + UNKNOWN_KEY_TTL_MS);
}

/**
 * Finds the environment an API key belongs to. Hits stay in the isolate for a minute so the
 * trigger path does not read D1 on every request; a revoked key therefore stops working
 * within a minute. Misses stay for 10 s, so a flood of bad keys does not read D1 for each
 * request; a key created during that time is found once it has passed.
 */
export async function ownerOfKey(d1: D1Database, key: string, now = Date.now()): Promise<KeyOwner | null> {
  const keyHash = await sha256Hex(key);
  const hit = cache.get(keyHash);
  if (hit && hit.expiresAt > now) return { ...hit.owner, keyHash };
  const missUntil = unknown.get(keyHash);
  if (missUntil !== undefined && missUntil > now) return null;
  const [row] = await createDb(d1)
    .select({ environmentId: apiKeys.environmentId, slug: environments.slug })
    .from(apiKeys)
    .innerJoin(environments, eq(environments.id, apiKeys.environmentId))
    .where(and(eq(apiKeys.hash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) {
    cache.delete(keyHash);
    rememberUnknown(keyHash, now);
    return null;
  }
  unknown.delete(keyHash);
  cache.set(keyHash, { owner: row, expiresAt: now + CACHE_TTL_MS });
  return { ...row, keyHash };
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** `ck_<environment slug>_<32 random base62 characters>`; the first 12 characters are shown as its prefix. */
export function generateApiKey(slug: string): { key: string; prefix: string } {
  const random = crypto.getRandomValues(new Uint8Array(32));
  const body = Array.from(random, (b) => ALPHABET[b % ALPHABET.length]).join("");
  const key = `ck_${slug}_${body}`;
  return { key, prefix: key.slice(0, 12) };
}
