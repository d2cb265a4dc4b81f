import { asc, eq, gt } from "drizzle-orm";
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
  analyticsOptOuts,
  proposals,
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
  environmentErasures,
} from "../../db/schema";
import type { AuditContext } from "../../db/queries/audit";
import { forgetApiKeys } from "./api-keys";
import { enqueueOwedErasure, owedErasure } from "./erasure-repository";
import { apiKeyIssuing, apiKeyReads, apiKeyRevocation } from "./key-admin-repository";
import { toEnvironment } from "./rows";
import type { EnvironmentInput, EnvironmentList, Environment } from "./schemas";
import { environmentCursor } from "./schemas";
import { type EnvironmentsScope, environmentsScope } from "./scope-repository";

import { keysetPage } from "../../lib/pagination";
import { newId } from "../../lib/ids";

export type { RevokeOutcome, RotateOutcome } from "./rows";

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
  analyticsOptOuts,
  proposals,
  apiKeys,
] as const;

/**
 * Tables with an `environment_id` that deleting the environment leaves: the audit log, whose
 * entries (the deletion's among them) outlive the environment until AUDIT_RETENTION_DAYS, and
 * the erasure it owes the log until that is enqueued (erasure-repository.ts).
 */
export const OUTLIVES_ENVIRONMENT = [auditLog, environmentErasures] as const;

/** Reading, creating and renaming environments. */
function environmentRecords({ db, audit, bySlug }: EnvironmentsScope) {
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
  };
}

/** Deleting an environment: every table it holds rows in, in one batch. */
function environmentRemoval({ db, audit, bySlug }: EnvironmentsScope) {
  return {
    /**
     * Deletes the environment and everything it holds in D1, in one batch (all or nothing), then
     * enqueues the erasure of its rows in the message log's shards (`logs`): too many shards and
     * rows for one request, and nothing reads them once the environment and its keys are gone.
     * The batch also records that erasure as owed, so a Queue that refuses it leaves the cron to
     * enqueue it rather than the log behind (erasure-repository.ts); the deletion stands either way.
     */
    async remove(slug: string, context: AuditContext, logs: LogStore): Promise<boolean> {
      const environment = await bySlug(slug);
      if (!environment) return false;
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
      await runBatch(db, [
        entry,
        ...deletes,
        db.delete(environments).where(eq(environments.id, environment.id)),
        owedErasure(db, environment.id, new Date()),
      ]);
      forgetApiKeys((entry) => entry.environmentId === environment.id);
      await enqueueOwedErasure(db, logs, environment.id);
      return true;
    },
  };
}

/**
 * Environments and their keys, for the admin API. Unlike the features' repositories it is not
 * bound to one environment: choosing the environment is what the admin API is for.
 */
export function environmentsRepository(db: Db) {
  const scope = environmentsScope(db);
  return {
    ...environmentRecords(scope),
    ...environmentRemoval(scope),
    ...apiKeyReads(scope),
    ...apiKeyIssuing(scope),
    ...apiKeyRevocation(scope),
  };
}
