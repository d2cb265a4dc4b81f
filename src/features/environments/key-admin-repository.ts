import { and, asc, eq, gt, isNull, or } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import type { AuditContext } from "../../db/queries/audit";
import { sha256Hex } from "../../lib/crypto";
import { idCursor } from "../../lib/cursor";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetApiKeys } from "./api-keys";
import { generateApiKey } from "./key-format";
import { type EnvironmentRow, type KeyRow, keyView, type RevokeOutcome, type RotateOutcome, toApiKey } from "./rows";
import type { ApiKeyCreated, ApiKeyInput, RotateInput } from "./schemas";
import type { EnvironmentsScope } from "./scope-repository";

/** A fresh key for an environment: the row to insert (its hash only) and the answer that shows the secret once. */
async function issueKey(
  environment: EnvironmentRow,
  name: string,
  expiresAt: Date | null,
  now: Date,
  access: Pick<KeyRow, "kind" | "scopes">,
) {
  const { key, prefix } = generateApiKey(environment.slug);
  const row: KeyRow = {
    id: newId("key"),
    environmentId: environment.id,
    name,
    prefix,
    hash: await sha256Hex(key),
    createdAt: now,
    revokedAt: null,
    expiresAt,
    lastUsedAt: null,
    ...access,
  };
  return { row, created: { ...toApiKey(row, environment.slug, now.getTime()), key } };
}

/** An environment's keys, as the admin API lists them. */
export function apiKeyReads({ db, bySlug }: EnvironmentsScope) {
  return {
    /** Keys of an environment, newest first; null when there is no such environment. */
    async listKeys(slug: string, limit: number, cursor: string | undefined, includeRevoked: boolean, now = new Date()) {
      const [after] = idCursor.read(cursor) ?? [];
      const environment = await bySlug(slug);
      if (!environment) return null;
      const usable = or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now));
      const rows = await db
        .select()
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.environmentId, environment.id),
            includeRevoked ? undefined : and(isNull(apiKeys.revokedAt), usable),
            after ? gt(apiKeys.id, after) : undefined,
          ),
        )
        .orderBy(asc(apiKeys.id))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => idCursor.encode([last.id]));
      return { data: page.rows.map((row) => toApiKey(row, slug, now.getTime())), nextCursor: page.nextCursor };
    },
  };
}

/** Handing out keys: a first one, or a successor that overlaps the key it replaces. */
export function apiKeyIssuing({ db, audit, bySlug, keyWithSlug }: EnvironmentsScope) {
  return {
    /** A new key, returned with its secret this once; null when there is no such environment. */
    async createKey(slug: string, input: ApiKeyInput, context: AuditContext, now = new Date()): Promise<ApiKeyCreated | null> {
      const environment = await bySlug(slug);
      if (!environment) return null;
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
      const { row, created } = await issueKey(environment, input.name, expiresAt, now, { kind: input.kind, scopes: input.scopes ?? null });
      await db.batch([
        db.insert(apiKeys).values(row),
        audit(context, {
          environmentId: environment.id,
          resource: "api_key",
          resourceId: row.id,
          action: "created",
          before: null,
          after: keyView(toApiKey(row, slug, now.getTime())),
        }),
      ]);
      return created;
    },

    /**
     * A new key for the same environment; the old one keeps working for the overlap, so clients
     * can move over without downtime. An old key already expiring keeps its earlier end.
     */
    async rotateKey(id: string, input: RotateInput, context: AuditContext, now = new Date()): Promise<RotateOutcome> {
      const found = await keyWithSlug(id);
      if (!found) return { status: "not_found" };
      if (found.key.revokedAt) return { status: "revoked" };
      // An expired key must not become a way back in: rotating hands out a fresh key.
      if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) return { status: "expired" };
      const environment = await bySlug(found.slug);
      if (!environment) return { status: "not_found" };
      const end = new Date(now.getTime() + input.overlapHours * 3_600_000);
      const expiresAt = found.key.expiresAt && found.key.expiresAt < end ? found.key.expiresAt : end;
      // The successor does what the old key did: same kind, same scopes.
      const { row, created } = await issueKey(environment, input.name ?? found.key.name, null, now, {
        kind: found.key.kind,
        scopes: found.key.scopes,
      });
      const [, [previous]] = await db.batch([
        db.insert(apiKeys).values(row),
        db.update(apiKeys).set({ expiresAt }).where(eq(apiKeys.id, id)).returning(),
        audit(context, {
          environmentId: environment.id,
          resource: "api_key",
          resourceId: id,
          action: "rotated",
          before: keyView(toApiKey(found.key, found.slug, now.getTime())),
          after: { ...keyView(toApiKey({ ...found.key, expiresAt }, found.slug, now.getTime())), replacedBy: row.id },
        }),
      ]);
      // The cached entry still holds the old end (none): drop it so this isolate reads the new one.
      forgetApiKeys((entry) => entry.keyId === id);
      if (!previous) return { status: "not_found" };
      return { status: "rotated", key: created, previous: toApiKey(previous, found.slug, now.getTime()) };
    },
  };
}

/** Revoking a key, at once and for good. */
export function apiKeyRevocation({ db, audit, keyWithSlug }: EnvironmentsScope) {
  return {
    async revokeKey(id: string, context: AuditContext, now = new Date()): Promise<RevokeOutcome> {
      const found = await keyWithSlug(id);
      if (!found) return { status: "not_found" };
      const revokedAt = found.key.revokedAt ?? now;
      const update = db.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, id)).returning();
      // Revoking twice is harmless, and recorded once.
      const [row] = found.key.revokedAt
        ? await update
        : (
            await db.batch([
              update,
              audit(context, {
                environmentId: found.key.environmentId,
                resource: "api_key",
                resourceId: id,
                action: "revoked",
                before: keyView(toApiKey(found.key, found.slug, now.getTime())),
                after: keyView(toApiKey({ ...found.key, revokedAt }, found.slug, now.getTime())),
              }),
            ])
          )[0];
      forgetApiKeys((entry) => entry.keyId === id);
      return row ? { status: "revoked", key: toApiKey(row, found.slug, now.getTime()) } : { status: "not_found" };
    },
  };
}
