/**
 * The rollup tables of a log shard. Empty strings stand for "none" in key columns (a primary key
 * treats NULLs as distinct). Times are the start of the UTC hour (or day) a message was created in.
 */
export const ROLLUP_SCHEMA = `
  CREATE TABLE IF NOT EXISTS rollup_messages (
    env TEXT NOT NULL, hour INTEGER NOT NULL, workflow TEXT NOT NULL, step TEXT NOT NULL, channel TEXT NOT NULL,
    provider TEXT NOT NULL, tenant TEXT NOT NULL, states INTEGER NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (env, hour, workflow, step, channel, provider, tenant, states, reason)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS rollup_latency (
    env TEXT NOT NULL, hour INTEGER NOT NULL, channel TEXT NOT NULL, provider TEXT NOT NULL, tenant TEXT NOT NULL,
    workflow TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (env, hour, channel, provider, tenant, workflow, bucket)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS rollup_audience (
    env TEXT NOT NULL, hour INTEGER NOT NULL, workflow TEXT NOT NULL, tenant TEXT NOT NULL,
    triggers INTEGER NOT NULL DEFAULT 0, recipients INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (env, hour, workflow, tenant)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS rollup_errors (
    env TEXT NOT NULL, day INTEGER NOT NULL, workflow TEXT NOT NULL, tenant TEXT NOT NULL, channel TEXT NOT NULL,
    provider TEXT NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL,
    n INTEGER NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL, example TEXT NOT NULL,
    PRIMARY KEY (env, day, workflow, tenant, channel, provider, code, message)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS rollup_fatigue (
    env TEXT NOT NULL, day INTEGER NOT NULL, subscriber TEXT NOT NULL, channel TEXT NOT NULL, workflow TEXT NOT NULL,
    tenant TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (env, day, subscriber, channel, workflow, tenant)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS rollup_fatigue_subscriber ON rollup_fatigue (env, subscriber, day);
`;

/** The rollup tables and the column holding each row's time, for retention and erasure of an environment. */
export const ROLLUP_TABLES = [
  ["rollup_messages", "hour"],
  ["rollup_latency", "hour"],
  ["rollup_audience", "hour"],
  ["rollup_errors", "day"],
  ["rollup_fatigue", "day"],
] as const;
