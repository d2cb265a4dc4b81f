import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys, environments } from "../../db/schema";

// The key lookup spans environments on purpose: the key is what names its environment.

/** The unrevoked key with this hash and its environment's slug, as one statement (the caller awaits it). */
export const unrevokedKeyByHash = (db: Db, keyHash: string) =>
  db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      environmentId: apiKeys.environmentId,
      slug: environments.slug,
      expiresAt: apiKeys.expiresAt,
      kind: apiKeys.kind,
      scopes: apiKeys.scopes,
    })
    .from(apiKeys)
    .innerJoin(environments, eq(environments.id, apiKeys.environmentId))
    .where(and(eq(apiKeys.hash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);

/** Records that a key was used; started, not awaited, by the lookup (it rides on the request's waitUntil). */
export const recordKeyUse = (db: Db, keyId: string, at: Date) =>
  db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, keyId)).run();
