import { sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { environments, WEBHOOK_RECEIPT_HOURS } from "./schema";

/** How long each kind of row is kept, and how many rows of each table one run may delete at most. */
export interface RetentionPolicy {
  /** Messages, their events and finished triggers. */
  messagesBefore: Date;
  /** Sandbox captures: development output, kept shorter. */
  sandboxBefore: Date;
  /** Webhook replay receipts, once the replay window has passed. */
  receiptsBefore: Date;
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
}

/** The retention settings a deployment can set (wrangler.toml `[vars]`); unset or invalid values take the defaults. */
export interface RetentionSettings {
  RETENTION_DAYS?: string;
  SANDBOX_RETENTION_DAYS?: string;
  RETENTION_MAX_ROWS?: string;
}

export const RETENTION_DEFAULTS = { days: 30, sandboxDays: 7, maxRows: 5000, sliceRows: 500 } as const;

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

const DAY_MS = 86_400_000;

export function retentionPolicy(settings: RetentionSettings, now: Date): RetentionPolicy {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  return {
    messagesBefore: ago(positive(settings.RETENTION_DAYS, RETENTION_DEFAULTS.days) * DAY_MS),
    sandboxBefore: ago(positive(settings.SANDBOX_RETENTION_DAYS, RETENTION_DEFAULTS.sandboxDays) * DAY_MS),
    receiptsBefore: ago(WEBHOOK_RECEIPT_HOURS * 3_600_000),
    maxRows: positive(settings.RETENTION_MAX_ROWS, RETENTION_DEFAULTS.maxRows),
    sliceRows: RETENTION_DEFAULTS.sliceRows,
  };
}

const FINISHED_TRIGGER_STATUSES = sql`('completed', 'cancelled', 'failed')`;

const changes = (result: unknown) => (result as { meta?: { changes?: number } }).meta?.changes ?? 0;

/**
 * Deletes what has outlived its policy, in bounded slices: each slice is one D1 batch of a few
 * statements, so no run holds the database for long and a backlog drains over several runs.
 * The oldest rows go first; per environment, so every delete walks an `(environment_id, time)` index.
 * Suppressions are never purged (they stay until lifted), nor are subscribers, workflows or topics.
 */
export async function purgeExpired(db: Db, policy: RetentionPolicy): Promise<RetentionReport> {
  const report: RetentionReport = { messages: 0, messageEvents: 0, triggers: 0, sandboxMessages: 0, webhookReceipts: 0 };
  const budget = (used: number) => Math.min(policy.sliceRows, policy.maxRows - used);
  const envs = await db.select({ id: environments.id }).from(environments);

  for (const { id } of envs) {
    // A message's events go in the same batch as the message, chosen by the same subquery.
    for (let n = budget(report.messages); n > 0; n = budget(report.messages)) {
      const expired = sql`select id from messages where environment_id = ${id} and created_at < ${policy.messagesBefore.getTime()} order by created_at, id limit ${n}`;
      const [events, deleted] = await db.batch([
        db.run(sql`delete from message_events where message_id in (${expired})`),
        db.run(sql`delete from messages where id in (${expired})`),
      ]);
      report.messageEvents += changes(events);
      report.messages += changes(deleted);
      if (changes(deleted) < n) break;
    }
    report.triggers += await drain(
      db,
      policy,
      report.triggers,
      (n) =>
        sql`delete from triggers where rowid in (select rowid from triggers where environment_id = ${id} and accepted_at < ${policy.messagesBefore.getTime()} and status in ${FINISHED_TRIGGER_STATUSES} order by accepted_at limit ${n})`,
    );
    report.sandboxMessages += await drain(
      db,
      policy,
      report.sandboxMessages,
      (n) =>
        sql`delete from sandbox_messages where id in (select id from sandbox_messages where environment_id = ${id} and created_at < ${policy.sandboxBefore.getTime()} order by created_at limit ${n})`,
    );
  }
  report.webhookReceipts += await drain(
    db,
    policy,
    report.webhookReceipts,
    (n) =>
      sql`delete from webhook_receipts where rowid in (select rowid from webhook_receipts where received_at < ${policy.receiptsBefore.getTime()} order by received_at limit ${n})`,
  );
  return report;
}

/** Runs a bounded delete until it deletes fewer rows than asked or the table's budget for this run is spent. */
async function drain(db: Db, policy: RetentionPolicy, used: number, statement: (n: number) => SQL): Promise<number> {
  const slice = (done: number) => Math.min(policy.sliceRows, policy.maxRows - used - done);
  let total = 0;
  for (let n = slice(0); n > 0; n = slice(total)) {
    const deleted = changes(await db.run(statement(n)));
    total += deleted;
    if (deleted < n) break;
  }
  return total;
}
