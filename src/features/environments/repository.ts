import { and, asc, eq, gt, isNull, or } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import type { LogStore } from "../../durable-objects/client/log-store";
import {
  apiKeys,
  auditLog,
  environments,
  events,
  inAppNotifications,
  inAppSettings,
  inboxPresence,
  integrations,
  messageEvents,
  messages,
  preferenceLinkSettings,
  brandVersions,
  brands,
  translationVersions,
  translations,
  translationSettings,
  sandboxMessages,
  subscriberActivity,
  subscriberChannels,
  subscribers,
  suppressions,
  topicMembers,
  topics,
  triggers,
  variables,
  subscriberTenantPreferences,
  tenants,
  webhookAttempts,
  webhookEndpoints,
  workflows,
  workflowVersions,
  layouts,
  layoutVersions,
  partials,
  partialVersions,
  contentStamps,
} from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { keysetPage } from "../../lib/pagination";
import { forgetApiKeys } from "./api-keys";
import { generateApiKey } from "./key-format";
import { type AuditChange, type AuditContext, auditStatement } from "../../db/queries/audit";
import {
  type ApiKey,
  type ApiKeyCreated,
  type ApiKeyInput,
  type Environment,
  type EnvironmentInput,
  type EnvironmentList,
  environmentCursor,
  type RotateInput,
} from "./schemas";
import { idCursor } from "../../lib/cursor";

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
  inboxPresence,
  preferenceLinkSettings,
  brandVersions,
  brands,
  translationVersions,
  translations,
  translationSettings,
  messageEvents,
  sandboxMessages,
  messages,
  triggers,
  topicMembers,
  topics,
  subscriberActivity,
  subscriberChannels,
  subscriberTenantPreferences,
  subscribers,
  tenants,
  variables,
  integrations,
  workflowVersions,
  workflows,
  layoutVersions,
  layouts,
  partialVersions,
  partials,
  contentStamps,
  suppressions,
  apiKeys,
] as const;

/**
 * Tables with an `environment_id` that deleting the environment leaves: the audit log, whose
 * entries (the deletion's among them) outlive the environment until AUDIT_RETENTION_DAYS.
 */
export const OUTLIVES_ENVIRONMENT = [auditLog] as const;

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
  const audit = (context: AuditContext, change: AuditChange, when: "changed" | "always" = "changed") =>
    auditStatement(db, context, change, when);
  /** A key as the audit log keeps it: its API view, which never holds the key, without the moving `status`. */
  const keyView = ({ status: _s, lastUsedAt: _l, ...view }: ApiKey) => view;
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

    async list(limit: number, cursor?: string): Promise<EnvironmentList> {
      const [after] = environmentCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(environments)
        .where(after ? gt(environments.slug, after) : undefined)
        .orderBy(asc(environments.slug))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => environmentCursor.encode([last.slug]));
      return { data: page.rows.map(toEnvironment), nextCursor: page.nextCursor };
    },

    /** Returns null when the slug is taken. */
    async create(input: EnvironmentInput, context: AuditContext, now = new Date()): Promise<Environment | null> {
      const id = newId("env");
      const [[row]] = await db.batch([
        db.insert(environments).values({ id, name: input.name, slug: input.slug, createdAt: now }).onConflictDoNothing().returning(),
        audit(context, {
          environmentId: id,
          resource: "environment",
          resourceId: input.slug,
          action: "created",
          before: null,
          after: input,
        }),
      ]);
      return row ? toEnvironment(row) : null;
    },

    async rename(slug: string, name: string, context: AuditContext): Promise<Environment | null> {
      const current = await bySlug(slug);
      if (!current) return null;
      const [[row]] = await db.batch([
        db.update(environments).set({ name }).where(eq(environments.id, current.id)).returning(),
        audit(context, {
          environmentId: current.id,
          resource: "environment",
          resourceId: slug,
          action: "renamed",
          before: { name: current.name, slug },
          after: { name, slug },
        }),
      ]);
      return row ? toEnvironment(row) : null;
    },

    /** Deletes the environment and everything it holds in D1, in one batch (all or nothing). */
    /** `logs`: the message log's shards, emptied of the environment first, so a failure there leaves it to delete again. */
    async remove(slug: string, context: AuditContext, logs: LogStore): Promise<boolean> {
      const environment = await bySlug(slug);
      if (!environment) return false;
      await Promise.all([logs.eraseEnvironment(environment.id), logs.eraseEnvironmentTriggers(environment.id)]);
      const deletes: BatchItem<"sqlite">[] = ENVIRONMENT_TABLES.map((table) =>
        db.delete(table).where(eq(table.environmentId, environment.id)),
      );
      // First, while the environment still has its slug to record; the batch is all or nothing.
      const entry = audit(
        context,
        {
          environmentId: environment.id,
          resource: "environment",
          resourceId: slug,
          action: "deleted",
          before: { name: environment.name, slug },
          after: null,
        },
        "always",
      );
      await runBatch(db, [entry, ...deletes, db.delete(environments).where(eq(environments.id, environment.id))]);
      forgetApiKeys((entry) => entry.environmentId === environment.id);
      return true;
    },

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

    /** A new key, returned with its secret this once; null when there is no such environment. */
    async createKey(slug: string, input: ApiKeyInput, context: AuditContext, now = new Date()): Promise<ApiKeyCreated | null> {
      const environment = await bySlug(slug);
      if (!environment) return null;
      const { row, created } = await issueKey(environment, input.name, input.expiresAt ? new Date(input.expiresAt) : null, now);
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
      const { row, created } = await issueKey(environment, input.name ?? found.key.name, null, now);
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
