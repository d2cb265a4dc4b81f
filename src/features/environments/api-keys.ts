import type { ApiKeyKind, McpScope } from "../../contract/api-keys";
import { unscopedDb } from "../../db/unscoped";
import { sha256Hex } from "../../lib/crypto";
import { recordKeyUse, unrevokedKeyByHash } from "./api-keys-repository";
import { randomBody } from "./key-format";

// Where callers have always found it; the format itself lives in key-format.ts.
export { generateApiKey } from "./key-format";

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
  /** The key's id and name, to say who made a change (workflow versions); never the key. */
  keyId: string;
  keyName: string;
  /** An `mcp` key works only at `/mcp`, for the tools of its scopes. */
  kind: ApiKeyKind;
  /** An `mcp` key's scopes; empty for an `api` key, which needs none. */
  scopes: readonly McpScope[];
  /** A D1 write to record the use, when the key has not been seen in this isolate for a minute. */
  touch?: Promise<unknown>;
}

interface CachedKey {
  keyId: string;
  keyName: string;
  kind: ApiKeyKind;
  scopes: readonly McpScope[];
  environmentId: string;
  slug: string;
  /** When the key itself stops working (a rotated key); null while it has no end. */
  keyExpiresAt: number | null;
  /** When this isolate asks D1 again. */
  cachedUntil: number;
}

const cache = new Map<string, CachedKey>();
const unknown = new Map<string, number>();
/**
 * The hash of each key that matched, so its next requests skip hashing it (a SHA-256 per request
 * is a few percent of the accept path). A hash never changes, so this needs no expiry: whether
 * the key still works is `cache`'s answer. Keys that matched nothing are not kept.
 */
const hashes = new Map<string, string>();
const HASHES_SIZE = 1_000;

function rememberHash(key: string, hash: string) {
  if (hashes.size >= HASHES_SIZE) {
    const oldest = hashes.keys().next().value;
    if (oldest !== undefined) hashes.delete(oldest);
  }
  hashes.set(key, hash);
}

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
 * trigger path does not read D1 on every request; a key revoked elsewhere therefore stops
 * working within a minute (at once in the isolate that revoked it, see `forgetApiKeys`). The
 * minute also bounds `last_used_at` writes: one per key per isolate per minute, never one per
 * request. Misses stay for 10 s, so a flood of bad keys does not read D1 for each request; a
 * key created elsewhere during that time is found once it has passed.
 */
export async function ownerOfKey(d1: D1Database, key: string, now = Date.now()): Promise<KeyOwner | null> {
  const keyHash = hashes.get(key) ?? (await sha256Hex(key));
  const hit = cache.get(keyHash);
  if (hit && hit.cachedUntil > now) {
    if (hit.keyExpiresAt !== null && hit.keyExpiresAt <= now) return null;
    const { environmentId, slug, keyId, keyName, kind, scopes } = hit;
    return { environmentId, slug, keyHash, keyId, keyName, kind, scopes };
  }
  const missUntil = unknown.get(keyHash);
  if (missUntil !== undefined && missUntil > now) return null;
  const db = unscopedDb({ DB: d1 });
  const [row] = await unrevokedKeyByHash(db, keyHash);
  const keyExpiresAt = row?.expiresAt?.getTime() ?? null;
  if (!row || (keyExpiresAt !== null && keyExpiresAt <= now)) {
    cache.delete(keyHash);
    rememberUnknown(keyHash, now);
    return null;
  }
  unknown.delete(keyHash);
  rememberHash(key, keyHash);
  const scopes = row.scopes ?? [];
  cache.set(keyHash, {
    keyId: row.id,
    keyName: row.name,
    kind: row.kind,
    scopes,
    environmentId: row.environmentId,
    slug: row.slug,
    keyExpiresAt,
    cachedUntil: now + CACHE_TTL_MS,
  });
  const touch = recordKeyUse(db, row.id, new Date(now));
  return { environmentId: row.environmentId, slug: row.slug, keyHash, keyId: row.id, keyName: row.name, kind: row.kind, scopes, touch };
}

/** Drops keys from this isolate's cache at once (a revocation, a deleted environment); other isolates follow within a minute. */
export function forgetApiKeys(matches: (entry: { keyId: string; environmentId: string }) => boolean): void {
  for (const [hash, entry] of cache) if (matches(entry)) cache.delete(hash);
}

/** Admin credentials are told apart from environment keys by their prefix alone. */
export const ADMIN_KEY_PREFIX = "clarion_admin_";

export const generateAdminKey = () => `${ADMIN_KEY_PREFIX}${randomBody()}`;
