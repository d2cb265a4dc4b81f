import { and, asc, eq, gt, isNull, or } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import {
  apiKeys,
  environments,
  events,
  inAppNotifications,
  inAppSettings,
  integrations,
  messageEvents,
  messages,
  preferenceLinkSettings,
  sandboxMessages,
  subscriberActivity,
  subscriberChannels,
  subscribers,
  suppressions,
  topicMembers,
  topics,
  triggers,
  variables,
  webhookAttempts,
  webhookEndpoints,
  workflows,
  workflowVersions,
} from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetApiKeys } from "./api-keys";
import { generateApiKey } from "./key-format";
import type { ApiKey, ApiKeyCreated, ApiKeyInput, Environment, EnvironmentInput, EnvironmentList, RotateInput } from "./schemas";

type EnvironmentRow = typeof environments.$inferSelect;
type KeyRow = typeof apiKeys.$inferSelect;

/**
 * Every table that holds an environment's data, children before parents. A test compares it with
 * the database's own list of tables that have an `environment_id`, so a new table cannot be missed.
 */
export const ENVIRONMENT_TABLES = [
  webhookAttempts,
  events,
  webhookEndpoints,
  inAppNotifications,
  inAppSettings,
  preferenceLinkSettings,
  messageEvents,
  sandboxMessages,
  messages,
  triggers,
  topicMembers,
  topics,
  subscriberActivity,
  subscriberChannels,
  subscribers,
  variables,
  integrations,
  workflowVersions,
  workflows,
  suppressions,
  apiKeys,
] as const;

const toEnvironment = (row: EnvironmentRow): Environment => ({
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

const toApiKey = (row: KeyRow, slug: string, now = Date.now()): ApiKey => ({
  id: row.id,
  environment: slug,
  name: row.name,
  prefix: row.prefix,
  status: statusOf(row, now),
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: iso(row.lastUsedAt),
  expiresAt: iso(row.expiresAt),
  revokedAt: iso(row.revokedAt),
});

export type RevokeOutcome = { status: "revoked"; key: ApiKey } | { status: "not_found" };
export type RotateOutcome =
  | { status: "rotated"; key: ApiKeyCreated; previous: ApiKey }
  | { status: "not_found" }
  | { status: "revoked" }
  | { status: "expired" };

/**
 * Environments and their keys, for the admin API. Unlike the features' repositories it is not
 * bound to one environment: choosing the environment is what the admin API is for.
 */
export function environmentsRepository(db: Db) {
  const bySlug = async (slug: string) => (await db.select().from(environments).where(eq(environments.slug, slug)).limit(1))[0];

  async function keyWithSlug(id: string) {
    const [row] = await db
      .select({ key: apiKeys, slug: environments.slug })
      .from(apiKeys)
      .innerJoin(environments, eq(environments.id, apiKeys.environmentId))
      .where(eq(apiKeys.id, id))
      .limit(1);
    return row;
  }

  async function issueKey(environment: EnvironmentRow, name: string, expiresAt: Date | null, now: Date) {
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
    };
    return { row, created: { ...toApiKey(row, environment.slug, now.getTime()), key } };
  }

  return {
    async find(slug: string): Promise<Environment | null> {
      const row = await bySlug(slug);
      return row ? toEnvironment(row) : null;
    },

    async list(limit: number, after?: string): Promise<EnvironmentList> {
      const rows = await db
        .select()
        .from(environments)
        .where(after ? gt(environments.slug, after) : undefined)
        .orderBy(asc(environments.slug))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => last.slug);
      return { data: page.rows.map(toEnvironment), nextCursor: page.nextCursor };
    },

    /** Returns null when the slug is taken. */
    async create(input: EnvironmentInput, now = new Date()): Promise<Environment | null> {
      const [row] = await db
        .insert(environments)
        .values({ id: newId("env"), name: input.name, slug: input.slug, createdAt: now })
        .onConflictDoNothing()
        .returning();
      return row ? toEnvironment(row) : null;
    },

    async rename(slug: string, name: string): Promise<Environment | null> {
      const [row] = await db.update(environments).set({ name }).where(eq(environments.slug, slug)).returning();
      return row ? toEnvironment(row) : null;
    },

    /** Deletes the environment and everything it holds in D1, in one batch (all or nothing). */
    async remove(slug: string): Promise<boolean> {
      const environment = await bySlug(slug);
      if (!environment) return false;
      const deletes: BatchItem<"sqlite">[] = ENVIRONMENT_TABLES.map((table) =>
        db.delete(table).where(eq(table.environmentId, environment.id)),
      );
      await runBatch(db, [...deletes, db.delete(environments).where(eq(environments.id, environment.id))]);
      forgetApiKeys((entry) => entry.environmentId === environment.id);
      return true;
    },

    /** Keys of an environment, newest first; null when there is no such environment. */
    async listKeys(slug: string, limit: number, after: string | undefined, includeRevoked: boolean, now = new Date()) {
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
      const page = keysetPage(rows, limit, (last) => last.id);
      return { data: page.rows.map((row) => toApiKey(row, slug, now.getTime())), nextCursor: page.nextCursor };
    },

    /** A new key, returned with its secret this once; null when there is no such environment. */
    async createKey(slug: string, input: ApiKeyInput, now = new Date()): Promise<ApiKeyCreated | null> {
      const environment = await bySlug(slug);
      if (!environment) return null;
      const { row, created } = await issueKey(environment, input.name, input.expiresAt ? new Date(input.expiresAt) : null, now);
      await db.insert(apiKeys).values(row);
      return created;
    },

    async revokeKey(id: string, now = new Date()): Promise<RevokeOutcome> {
      const found = await keyWithSlug(id);
      if (!found) return { status: "not_found" };
      const [row] = await db
        .update(apiKeys)
        .set({ revokedAt: found.key.revokedAt ?? now })
        .where(eq(apiKeys.id, id))
        .returning();
      forgetApiKeys((entry) => entry.keyId === id);
      return row ? { status: "revoked", key: toApiKey(row, found.slug, now.getTime()) } : { status: "not_found" };
    },

    /**
     * A new key for the same environment; the old one keeps working for the overlap, so clients
     * can move over without downtime. An old key already expiring keeps its earlier end.
     */
    async rotateKey(id: string, input: RotateInput, now = new Date()): Promise<RotateOutcome> {
      const found = await keyWithSlug(id);
      if (!found) return { status: "not_found" };
      if (found.key.revokedAt) return { status: "revoked" };
      // An expired key must not become a way back in: rotating hands out a fresh key.
      if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) return { status: "expired" };
      const environment = await bySlug(found.slug);
      if (!environment) return { status: "not_found" };
      const end = new Date(now.getTime() + input.overlapHours * 3_600_000);
      const expiresAt = found.key.expiresAt && found.key.expiresAt < end ? found.key.expiresAt : end;
      const { row, created } = await issueKey(environment, input.name ?? found.key.name, null, now);
      const [, [previous]] = await db.batch([
        db.insert(apiKeys).values(row),
        db.update(apiKeys).set({ expiresAt }).where(eq(apiKeys.id, id)).returning(),
      ]);
      // The cached entry still holds the old end (none): drop it so this isolate reads the new one.
      forgetApiKeys((entry) => entry.keyId === id);
      if (!previous) return { status: "not_found" };
      return { status: "rotated", key: created, previous: toApiKey(previous, found.slug, now.getTime()) };
    },
  };
}
