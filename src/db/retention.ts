import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import {
  analyticsOptOuts,
  auditLog,
  dashboardSessions,
  environments,
  events,
  IDEMPOTENCY_KEY_HOURS,
  inAppNotifications,
  idempotencyKeys,
  messageEvents,
  messages,
  sandboxMessages,
  triggers,
  WEBHOOK_RECEIPT_HOURS,
  webhookAttempts,
  webhookReceipts,
} from "./schema";

/** How long each kind of row is kept, and how many rows of each table one run may delete at most. */
export interface RetentionPolicy {
  /** Messages, their events and finished triggers. */
  messagesBefore: Date;
  /** Audit log entries: kept for their own period, not the messages'. */
  auditBefore: Date;
  /** The analytics' opt-out counts: kept as long as the log shards' rollups, past the messages. */
  analyticsBefore: Date;
  /** Sandbox captures: development output, kept shorter. */
  sandboxBefore: Date;
  /** Webhook replay receipts, once the replay window has passed. */
  receiptsBefore: Date;
  /** Idempotency keys, once their stored answer is no longer replayed. */
  idempotencyBefore: Date;
  /** Dashboard sessions that ended before this (now): signed-out ones are already gone. */
  sessionsBefore: Date;
  /** Rows per table per run; deletes go in slices of `sliceRows`. */
  maxRows: number;
  sliceRows: number;
}

export interface RetentionReport {
  messages: number;
  messageEvents: number;
  triggers: number;
  sandboxMessages: number;
  webhookReceipts: number;
  idempotencyKeys: number;
  dashboardSessions: number;
  /** The event log and the delivery attempts of webhook endpoints, kept as long as messages. */
  events: number;
  webhookAttempts: number;
  auditLog: number;
  /** In-app notifications D1 kept from before the feed moved to the log shards (which expire their own). */
  inAppNotifications: number;
  analyticsOptOuts: number;
}

/** The retention settings a deployment can set (wrangler.toml `[vars]`); unset or invalid values take the defaults. */
export interface RetentionSettings {
  RETENTION_DAYS?: string;
  AUDIT_RETENTION_DAYS?: string;
  ANALYTICS_RETENTION_DAYS?: string;
  SANDBOX_RETENTION_DAYS?: string;
  RETENTION_MAX_ROWS?: string;
}

export const RETENTION_DEFAULTS = { days: 30, auditDays: 365, analyticsDays: 400, sandboxDays: 7, maxRows: 5000, sliceRows: 500 } as const;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

const DAY_MS = 86_400_000;

export function retentionPolicy(settings: RetentionSettings, now: Date): RetentionPolicy {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  return {
    messagesBefore: ago(positive(settings.RETENTION_DAYS, RETENTION_DEFAULTS.days) * DAY_MS),
    auditBefore: ago(positive(settings.AUDIT_RETENTION_DAYS, RETENTION_DEFAULTS.auditDays) * DAY_MS),
    analyticsBefore: ago(positive(settings.ANALYTICS_RETENTION_DAYS, RETENTION_DEFAULTS.analyticsDays) * DAY_MS),
    sandboxBefore: ago(positive(settings.SANDBOX_RETENTION_DAYS, RETENTION_DEFAULTS.sandboxDays) * DAY_MS),
    receiptsBefore: ago(WEBHOOK_RECEIPT_HOURS * 3_600_000),
    idempotencyBefore: ago(IDEMPOTENCY_KEY_HOURS * 3_600_000),
    sessionsBefore: now,
    maxRows: positive(settings.RETENTION_MAX_ROWS, RETENTION_DEFAULTS.maxRows),
    sliceRows: RETENTION_DEFAULTS.sliceRows,
  };
}

const FINISHED_TRIGGER_STATUSES = ["completed", "cancelled", "failed"] as const;

const changes = (result: unknown) => (result as { meta?: { changes?: number } }).meta?.changes ?? 0;

/**
 * Deletes what has outlived its policy, in bounded slices: each slice is one D1 batch of a few
 * statements, so no run holds the database for long and a backlog drains over several runs.
 * The oldest rows go first; per environment, so every delete walks an `(environment_id, time)` index.
 * Suppressions are never purged (they stay until lifted), nor are subscribers, workflows or topics.
 */
export async function purgeExpired(db: Db, policy: RetentionPolicy): Promise<RetentionReport> {
  const report: RetentionReport = {
    messages: 0,
    messageEvents: 0,
    triggers: 0,
    sandboxMessages: 0,
    webhookReceipts: 0,
    idempotencyKeys: 0,
    dashboardSessions: 0,
    events: 0,
    webhookAttempts: 0,
    auditLog: 0,
    inAppNotifications: 0,
    analyticsOptOuts: 0,
  };
  const envs = await db.select({ id: environments.id }).from(environments);

  for (const { id } of envs) await purgeEnvironment(db, policy, id, report);
  await purgeAcrossEnvironments(db, policy, report);
  return report;
}

/** One environment's expired messages (with their events), finished triggers, in-app notifications and sandbox captures; adds to `report`. */
async function purgeEnvironment(db: Db, policy: RetentionPolicy, id: string, report: RetentionReport): Promise<void> {
  // A message's events go in the same batch as the message, chosen by the same subquery.
  for (let n = slice(policy, report.messages); n > 0; n = slice(policy, report.messages)) {
    const expired = db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.environmentId, id), lt(messages.createdAt, policy.messagesBefore)))
      .orderBy(asc(messages.createdAt), asc(messages.id))
      .limit(n);
    const [events, deleted] = await db.batch([
      db.delete(messageEvents).where(inArray(messageEvents.messageId, expired)),
      db.delete(messages).where(inArray(messages.id, expired)),
    ]);
    report.messageEvents += changes(events);
    report.messages += changes(deleted);
    if (changes(deleted) < n) break;
  }
  report.triggers += await drain(policy, report.triggers, (n) =>
    db.delete(triggers).where(
      and(
        eq(triggers.environmentId, id),
        inArray(
          triggers.transactionId,
          db
            .select({ id: triggers.transactionId })
            .from(triggers)
            .where(
              and(
                eq(triggers.environmentId, id),
                lt(triggers.acceptedAt, policy.messagesBefore),
                inArray(triggers.status, [...FINISHED_TRIGGER_STATUSES]),
              ),
            )
            .orderBy(asc(triggers.acceptedAt))
            .limit(n),
        ),
      ),
    ),
  );
  report.inAppNotifications += await drain(policy, report.inAppNotifications, (n) =>
    db.delete(inAppNotifications).where(
      inArray(
        inAppNotifications.id,
        db
          .select({ id: inAppNotifications.id })
          .from(inAppNotifications)
          .where(and(eq(inAppNotifications.environmentId, id), lt(inAppNotifications.createdAt, policy.messagesBefore)))
          .limit(n),
      ),
    ),
  );
  // The primary key leads with (environment_id, hour): each slice is a range of it.
  report.analyticsOptOuts += await drain(policy, report.analyticsOptOuts, (n) =>
    db.delete(analyticsOptOuts).where(
      inArray(
        rowid,
        db
          .select({ rowid })
          .from(analyticsOptOuts)
          .where(and(eq(analyticsOptOuts.environmentId, id), lt(analyticsOptOuts.hour, policy.analyticsBefore.getTime())))
          .orderBy(asc(analyticsOptOuts.hour))
          .limit(n),
      ),
    ),
  );
  report.sandboxMessages += await drain(policy, report.sandboxMessages, (n) =>
    db.delete(sandboxMessages).where(
      inArray(
        sandboxMessages.id,
        db
          .select({ id: sandboxMessages.id })
          .from(sandboxMessages)
          .where(and(eq(sandboxMessages.environmentId, id), lt(sandboxMessages.createdAt, policy.sandboxBefore)))
          .orderBy(asc(sandboxMessages.createdAt))
          .limit(n),
      ),
    ),
  );
}

/** The tables purged across environments on their own time index; adds to `report`. */
async function purgeAcrossEnvironments(db: Db, policy: RetentionPolicy, report: RetentionReport): Promise<void> {
  report.webhookReceipts += await drain(policy, report.webhookReceipts, (n) =>
    oldestRows(db, webhookReceipts, webhookReceipts.receivedAt, policy.receiptsBefore, n),
  );
  // The admin API's keys have no environment: one pass over the table's time index takes every scope.
  report.idempotencyKeys += await drain(policy, report.idempotencyKeys, (n) =>
    oldestRows(db, idempotencyKeys, idempotencyKeys.createdAt, policy.idempotencyBefore, n),
  );
  report.dashboardSessions += await drain(policy, report.dashboardSessions, (n) =>
    oldestRows(db, dashboardSessions, dashboardSessions.expiresAt, policy.sessionsBefore, n),
  );
  // Outbound events and their attempts: across environments, on their own time indexes.
  report.events += await drain(policy, report.events, (n) => oldestRows(db, events, events.createdAt, policy.messagesBefore, n));
  report.webhookAttempts += await drain(policy, report.webhookAttempts, (n) =>
    oldestRows(db, webhookAttempts, webhookAttempts.createdAt, policy.messagesBefore, n),
  );
  // Entries of deleted environments too: the audit log outlives them, up to its own period.
  report.auditLog += await drain(policy, report.auditLog, (n) => oldestRows(db, auditLog, auditLog.at, policy.auditBefore, n));
}

const rowid = sql`rowid`;

/** Deletes the `n` oldest rows written before `before`, across environments, by rowid (these tables have no single-column key). */
const oldestRows = (db: Db, table: SQLiteTable, time: SQLiteColumn, before: Date, n: number) =>
  db.delete(table).where(inArray(rowid, db.select({ rowid }).from(table).where(lt(time, before)).orderBy(asc(time)).limit(n)));

/** How many rows the next slice of a table may delete: at most `sliceRows`, within the run's budget. */
const slice = (policy: RetentionPolicy, used: number) => Math.min(policy.sliceRows, policy.maxRows - used);

/** Runs a bounded delete until it deletes fewer rows than asked or the table's budget for this run is spent. */
async function drain(policy: RetentionPolicy, used: number, statement: (n: number) => PromiseLike<unknown>): Promise<number> {
  let total = 0;
  for (let n = slice(policy, used); n > 0; n = slice(policy, used + total)) {
    const deleted = changes(await statement(n));
    total += deleted;
    if (deleted < n) break;
  }
  return total;
}
