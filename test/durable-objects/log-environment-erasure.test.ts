import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Bindings } from "../../src/env";
import type { LogTrigger, LogWrite } from "../../src/durable-objects/client/log-store";
import { ERASE_ROWS_PER_PASS, ERASE_STATEMENTS, eraseBound, KEYED_TABLES } from "../../src/durable-objects/log/environment-erasure";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { indexedOf } from "../../src/durable-objects/log/rows";
import { ROLLUP_TABLES } from "../../src/durable-objects/log/rollups/schema";
import { newId } from "../../src/lib/ids";
import { allLogShards, generationsWithin, shardSlices, shardsOfSlice } from "../../src/durable-objects/client/log-naming";
import { SHARDS_PER_ERASE_JOB } from "../../src/jobs/job";
import { unique } from "../factories";
import { logMessage, notificationOf } from "../log";

const logs = (env as unknown as Bindings).LOGS;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Every table of a shard that holds an environment's rows. */
const TABLES = [
  "messages",
  "message_events",
  "provider_refs",
  "in_app_notifications",
  "trigger_messages",
  "triggers",
  "trigger_people",
  ...ROLLUP_TABLES.map(([t]) => t),
];

const trigger = (environmentId: string, at: number, workflowKey: string): LogTrigger => ({
  environmentId,
  transactionId: unique("txn"),
  workflowKey,
  status: "processing",
  // Inline profiles: the trigger quotes them (trigger_people).
  recipients: [{ subscriberId: "ada", email: "ada@example.com" }, { subscriberId: "bob" }],
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt: at,
  cancelledMessages: null,
  workflowVersion: null,
  tenantId: null,
  context: null,
  createdAt: at,
  updatedAt: at,
});

/** A write of `n` messages of an environment, each in its own hour and workflow (so each its own rollup rows), with a row in every table. */
function rowsOf(environmentId: string, n: number, now: number): LogWrite {
  const inserts = Array.from({ length: n }, (_, i) =>
    logMessage({
      environmentId,
      subscriberId: `s${i}`,
      createdAt: now - i * HOUR,
      workflowKey: `wf${i}`,
      status: "failed",
      errorCode: "e",
      errorMessage: `x${i}`,
    }),
  );
  return {
    inserts,
    events: inserts.flatMap((m) =>
      // Sent, then failed (a bounce): counted in every rollup, the errors and the fatigue included.
      (["sending", "sent", "failed"] as const).map((status) => ({
        id: newId("evt"),
        environmentId,
        messageId: m.id,
        status,
        at: m.createdAt,
        detail: null,
      })),
    ),
    refs: inserts.map((m) => ({ providerMessageId: `pm-${m.id}`, environmentId, messageId: m.id })),
    feed: inserts.map((m) => notificationOf(m)),
    indexed: inserts.map(indexedOf),
  };
}

async function plant(name: string, environmentId: string, n: number, now = Date.now()) {
  const shard = logs.get(logs.idFromName(name));
  await shard.write(name, rowsOf(environmentId, n, now));
  await shard.writeTriggers(
    name,
    Array.from({ length: n }, (_, i) => trigger(environmentId, now - i * HOUR, `wf${i}`)),
    false,
  );
  return shard;
}

/** Rows of the environment in each table of the shard, and its erasure record. */
const countsOf = (shard: DurableObjectStub<LogShard>, environmentId: string) =>
  runInDurableObject(shard, (_o: LogShard, state) => {
    const sql = state.storage.sql;
    const rows = Object.fromEntries(
      TABLES.map((t) => [t, Number(sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${t} WHERE env = ?`, environmentId).one().n)]),
    );
    const [record] = sql
      .exec<{ done_at: number | null }>("SELECT done_at FROM erasing_environments WHERE env = ?", environmentId)
      .toArray();
    return { rows, erasing: record ? (record.done_at === null ? "running" : "done") : "none" };
  });

afterEach(() => {
  eraseBound.rows = ERASE_ROWS_PER_PASS;
});

describe("LogShard.eraseEnvironment", () => {
  it("erases in bounded passes that its alarm carries on, every table of the environment and nothing of another", async () => {
    eraseBound.rows = 3;
    const name = unique("log-erase");
    const [doomed, kept] = [unique("env"), unique("env")];
    const shard = await plant(name, doomed, 7);
    await plant(name, kept, 2);
    const before = await countsOf(shard, doomed);
    // More rows than one pass takes in every table: the rollups, the trigger records and their people included.
    for (const t of TABLES) expect(before.rows[t], t).toBeGreaterThan(3);
    const keptBefore = await countsOf(shard, kept);

    const first = await shard.eraseEnvironment(doomed);
    expect(first).toEqual({ messages: 3, triggers: 3, more: true });
    const left = await countsOf(shard, doomed);
    expect(left.erasing).toBe("running");
    expect(left.rows.messages).toBe(4);
    expect(left.rows.message_events).toBe(12);
    const alarm = await runInDurableObject(shard, (_o: LogShard, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(Date.now() + 1_000);

    let passes = 0;
    while ((await countsOf(shard, doomed)).erasing === "running" && passes++ < 20) expect(await runDurableObjectAlarm(shard)).toBe(true);
    const after = await countsOf(shard, doomed);
    expect(after.erasing).toBe("done");
    expect(
      Object.values(after.rows).every((n) => n === 0),
      JSON.stringify(after.rows),
    ).toBe(true);
    expect((await countsOf(shard, kept)).rows).toEqual(keptBefore.rows);
    // Done: the next alarm is the hourly expiry's again, not another pass.
    expect(await runInDurableObject(shard, (_o: LogShard, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now() + HOUR / 2);
    // Asked again (a retried job), it finds nothing.
    expect(await shard.eraseEnvironment(doomed)).toEqual({ messages: 0, triggers: 0, more: false });
  });

  it("drops a late write for an environment it is erasing or erased, and keeps others'", async () => {
    eraseBound.rows = 2;
    const name = unique("log-erase-late");
    const [doomed, kept] = [unique("env"), unique("env")];
    const shard = await plant(name, doomed, 3);
    expect((await shard.eraseEnvironment(doomed)).more).toBe(true);
    // While erasing: a delivery that read the environment before its deletion writes now.
    await plant(name, doomed, 2, Date.now() + 1);
    await plant(name, kept, 2);
    await shard.feedInsert(name, [notificationOf(logMessage({ environmentId: doomed, subscriberId: "late", createdAt: Date.now() }))]);
    for (let i = 0; i < 10 && (await countsOf(shard, doomed)).erasing === "running"; i++) await runDurableObjectAlarm(shard);
    expect((await countsOf(shard, doomed)).erasing).toBe("done");
    // And after: erased within the day.
    await plant(name, doomed, 2, Date.now() + 2);
    const { rows } = await countsOf(shard, doomed);
    expect(
      Object.values(rows).every((n) => n === 0),
      JSON.stringify(rows),
    ).toBe(true);
    expect((await countsOf(shard, kept)).rows.messages).toBe(2);
  });

  it("seeks each table's rows of the environment by an index, scanning none", async () => {
    const shard = logs.get(logs.idFromName(unique("log-erase-plan")));
    const plans = await runInDurableObject(shard, (_o: LogShard, state) =>
      ERASE_STATEMENTS.map((statement) =>
        state.storage.sql
          .exec<{ detail: string }>(
            `EXPLAIN QUERY PLAN ${statement}`,
            ...Array.from({ length: (statement.match(/\?(?!\d)/g) ?? []).length || 2 }, () => "x"),
          )
          .toArray()
          .map((r) => r.detail)
          .join("\n"),
      ),
    );
    for (const plan of plans) expect(plan).not.toMatch(/SCAN (?!json_each)/);
    const [ids, events, messages, refs, feed, ...keyed] = plans;
    expect(ids).toMatch(/SEARCH messages USING COVERING INDEX messages_env_created \(env=\?\)/);
    expect(events).toMatch(/SEARCH message_events USING PRIMARY KEY \(message_id=\?\)/);
    // A new shard's messages are a rowid table: by the unique id's index (schema.ts).
    expect(messages).toMatch(/SEARCH messages USING COVERING INDEX sqlite_autoindex_messages_1 \(id=\?\)/);
    expect(refs).toMatch(/SEARCH provider_refs USING INDEX provider_refs_created \(\(created_at,provider_message_id,message_id\)>/);
    expect(feed).toMatch(/SEARCH in_app_notifications USING COVERING INDEX in_app_env_subscriber(_context)? \(env=\?\)/);
    // The rows by their key, the subquery's range by the environment: both seeks.
    keyed.forEach((plan, i) => {
      const table = KEYED_TABLES[i]![0];
      expect(plan).toMatch(
        new RegExp(`^SEARCH ${table} USING (PRIMARY KEY|(COVERING )?INDEX \\w+) \\(env=\\? AND .*\n.*\nSEARCH ${table} .*\\(env=\\?`),
      );
    });
  });
});

describe("shardSlices", () => {
  it("covers every shard of every generation in both layouts once, in slices of at most the job's size", () => {
    const layout = { LOG_SHARDS: "120", LOG_SHARDS_PREVIOUS: "16", LOG_GENERATION_DAYS: "1" };
    const now = Date.now();
    const generations = generationsWithin(layout, now, 3 * DAY);
    const slices = shardSlices(layout, generations, SHARDS_PER_ERASE_JOB);
    expect(slices.every((s) => s.to - s.from <= SHARDS_PER_ERASE_JOB && s.from < s.to)).toBe(true);
    const named = slices.flatMap(shardsOfSlice);
    expect(new Set(named).size).toBe(named.length);
    expect(named.sort()).toEqual(generations.flatMap((g) => allLogShards(layout, g)).sort());
    // Three slices of 120 and one of 16 per generation.
    expect(slices).toHaveLength(generations.length * 4);
  });
});
