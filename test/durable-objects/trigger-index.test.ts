// A trigger's messages counted from its own shard's index (trigger-index.ts): one LogShard call,
// the same answer as counting every shard.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordTriggers } from "../../src/delivery/writes/trigger-writes";
import { allLogShards, logShardFor, subscriberPartition, triggerPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore, type LogMessage } from "../../src/durable-objects/client/log-store";
import { newLogId } from "../../src/lib/ids";
import { LogShard } from "../../src/durable-objects/log/log-shard";
import { SET_BY_KEY, SET_IN_TRIGGER, TriggerIndex } from "../../src/durable-objects/log/trigger-index";
import { unique } from "../factories";

/** A LogStore whose shard calls are named in `calls`: the objects a read touched. */
function countingStore(calls: string[]): LogStore {
  const logs = env.LOGS;
  const counted = {
    idFromName: (name: string) => {
      calls.push(name);
      return logs.idFromName(name);
    },
    get: (id: DurableObjectId) => logs.get(id),
  };
  return new LogStore({ ...env, LOGS: counted as unknown as typeof env.LOGS });
}

const message = (environmentId: string, transactionId: string, subscriberId: string, status: string, at: number): LogMessage =>
  ({
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId,
    subscriberId,
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    provider: null,
    integrationId: null,
    status,
    providerMessageId: null,
    to: null,
    subject: null,
    preview: null,
    content: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    workflowVersion: 1,
    layoutVersion: null,
    createdAt: at,
    updatedAt: at,
  }) as LogMessage;

/** What the counts were before the index: every shard asked for its own messages of the trigger. */
async function countedEverywhere(environmentId: string, transactionId: string): Promise<Record<string, number>> {
  const byStatus: Record<string, number> = {};
  for (const name of allLogShards(env)) {
    const rows = await env.LOGS.get(env.LOGS.idFromName(name)).counts(environmentId, transactionId);
    for (const { status, n } of rows) byStatus[status] = (byStatus[status] ?? 0) + n;
  }
  return byStatus;
}

const record = (environmentId: string, transactionId: string) => ({
  environmentId,
  transactionId,
  workflowKey: "wf",
  workflowVersion: 1,
  recipients: [],
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt: Date.now(),
});

describe("a trigger's message counts", () => {
  it("come from the trigger's shard alone and match the counts of every shard, as statuses change", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    await recordTriggers(new LogStore(env), [{ record: record(environmentId, transactionId), status: "processing" }]);
    const now = Date.now();
    // Forty recipients: their messages sit in (nearly) every shard.
    const messages = Array.from({ length: 40 }, (_, n) => message(environmentId, transactionId, `sub-${n}`, "sending", now + n));
    const store = new LogStore(env);
    const inserts = store.batch();
    for (const m of messages) inserts.insert(m);
    await store.write(inserts);
    expect(new Set(messages.map((m) => logShardFor(env, subscriberPartition(environmentId, m.subscriberId)))).size).toBeGreaterThan(8);

    const results = store.batch();
    messages.forEach((m, n) => {
      if (n % 4 !== 3) results.update(m.id, { status: n % 4 === 0 ? "failed" : "sent", updatedAt: now + 100 }, m);
    });
    // An identity stored again under another id is not a second message, here as in its shard.
    results.insert({ ...messages[0]!, id: newLogId("msg", subscriberPartition(environmentId, "sub-0")), status: "sent" });
    await store.write(results);

    const calls: string[] = [];
    const counts = Object.fromEntries(await countingStore(calls).counts(environmentId, transactionId));
    expect(calls).toHaveLength(1);
    expect(counts).toEqual({ failed: 10, sent: 20, sending: 10 });
    expect(counts).toEqual(await countedEverywhere(environmentId, transactionId));
  });

  it("are zero from one shard for a recorded trigger without messages yet", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    await recordTriggers(new LogStore(env), [{ record: record(environmentId, transactionId), status: "processing" }]);
    const calls: string[] = [];
    expect((await countingStore(calls).counts(environmentId, transactionId)).size).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it("are counted over every shard for a trigger the index does not know (written before it was kept)", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const m = message(environmentId, transactionId, "ada", "sent", Date.now());
    // As a shard that predates the index holds it: the message without its index row.
    await env.LOGS.get(env.LOGS.idFromName(logShardFor(env, subscriberPartition(environmentId, "ada")))).write("legacy", {
      inserts: [m],
    });
    const calls: string[] = [];
    expect(Object.fromEntries(await countingStore(calls).counts(environmentId, transactionId))).toEqual({ sent: 1 });
    expect(calls.length).toBe(1 + allLogShards(env).length);
  });
});

describe("a trigger index's status changes", () => {
  const indexed = (environmentId: string, transactionId: string, subscriberId: string, messageId: string) => ({
    environmentId,
    transactionId,
    subscriberId,
    stepId: "mail",
    messageId,
    status: "sending",
    createdAt: Date.now(),
  });

  it("seek the row by its send identity, change only the message it holds, and take an older writer's change by message id", async () => {
    const shard = env.LOGS.get(env.LOGS.idFromName(unique("trigger-index-keyed")));
    const [environmentId, transactionId] = [unique("env"), unique("tx")];
    const rows = ["ann", "ben", "cal"].map((s) => indexed(environmentId, transactionId, s, unique(`m-${s}`)));
    const seen = await runInDurableObject(shard, async (instance: LogShard, state) => {
      await instance.write("t", { indexed: rows });
      await instance.write("t", {
        indexedStatus: [
          // By its identity.
          { environmentId, transactionId, subscriberId: "ann", stepId: "mail", messageId: rows[0]!.messageId, status: "sent" },
          // The identity's row holds another message (stored first): unchanged, as in the message's shard.
          { environmentId, transactionId, subscriberId: "ben", stepId: "mail", messageId: unique("other"), status: "failed" },
          // From code before the identity was sent along: found by message id within the trigger.
          { environmentId, transactionId, messageId: rows[2]!.messageId, status: "delivered" },
        ],
      });
      const sql = state.storage.sql;
      const plan = (query: string) =>
        sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, "[]")
          .toArray()
          .map((r) => r.detail)
          .filter((d) => d.includes("trigger_messages"));
      return {
        statuses: sql
          .exec<{ subscriber: string; status: string }>("SELECT subscriber, status FROM trigger_messages ORDER BY subscriber")
          .toArray(),
        indexes: sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'trigger_messages'")
          .toArray()
          .map((r) => r.name)
          .filter((n) => !n.startsWith("sqlite_autoindex")),
        byKey: plan(SET_BY_KEY),
        inTrigger: plan(SET_IN_TRIGGER),
      };
    });
    expect(seen.statuses).toEqual([
      { subscriber: "ann", status: "sent" },
      { subscriber: "ben", status: "sending" },
      { subscriber: "cal", status: "delivered" },
    ]);
    // Only expiry's index by time: none by message id.
    expect(seen.indexes).toEqual(["trigger_messages_created"]);
    expect(seen.byKey.join("\n")).toMatch(/SEARCH trigger_messages USING PRIMARY KEY \(env=\? AND tx=\? AND subscriber=\? AND step=\?\)/);
    expect(seen.inTrigger.join("\n")).toMatch(/SEARCH trigger_messages USING PRIMARY KEY \(env=\? AND tx=\?\)/);
  });

  it("drops the index by message id of a shard made with it, at its next start", async () => {
    const shard = env.LOGS.get(env.LOGS.idFromName(unique("trigger-index-upgrade")));
    const names = await runInDurableObject(shard, (_o: LogShard, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE INDEX trigger_messages_message ON trigger_messages (message_id)");
      // A shard left by the code before: no schema version of this code.
      sql.exec("DELETE FROM settings WHERE key = 'schema'");
      new LogShard(state, env);
      return sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'trigger_messages_message'")
        .toArray();
    });
    expect(names).toEqual([]);
  });
});

describe("a trigger's kept counts", () => {
  const shardOf = (environmentId: string, transactionId: string) =>
    env.LOGS.get(env.LOGS.idFromName(logShardFor(env, triggerPartition(environmentId, transactionId))));
  const tables = (stub: DurableObjectStub<LogShard>, environmentId: string, transactionId: string) =>
    runInDurableObject(stub, (_o: LogShard, state) => {
      const read = (query: string) =>
        Object.fromEntries(
          state.storage.sql
            .exec<{ status: string; n: number }>(query, environmentId, transactionId)
            .toArray()
            .map((r) => [r.status, r.n]),
        );
      return {
        kept: read("SELECT status, n FROM trigger_counts WHERE env = ? AND tx = ? AND n > 0"),
        rows: read("SELECT status, count(*) AS n FROM trigger_messages WHERE env = ? AND tx = ? GROUP BY status"),
      };
    });
  const addToKept = (stub: DurableObjectStub<LogShard>, status: string, n: number) =>
    runInDurableObject(stub, (_o: LogShard, state) => {
      state.storage.sql.exec("UPDATE trigger_counts SET n = n + ? WHERE status = ?", n, status);
    });

  /** A recorded trigger with 40 messages, then 30 of them changed (and one identity inserted again, one change repeated). */
  async function triggerWithMessages(environmentId: string, transactionId: string) {
    const store = new LogStore(env);
    await recordTriggers(store, [{ record: record(environmentId, transactionId), status: "processing" }]);
    const now = Date.now();
    const messages = Array.from({ length: 40 }, (_, n) => message(environmentId, transactionId, `sub-${n}`, "sending", now + n));
    const inserts = store.batch();
    for (const m of messages) inserts.insert(m);
    await store.write(inserts);
    const results = store.batch();
    messages.forEach((m, n) => {
      if (n % 4 !== 3) results.update(m.id, { status: n % 4 === 0 ? "failed" : "sent", updatedAt: now + 100 }, m);
    });
    results.insert({ ...messages[0]!, id: newLogId("msg", subscriberPartition(environmentId, "sub-0")), status: "sent" });
    await store.write(results);
    const again = store.batch();
    again.update(messages[1]!.id, { status: "sent", updatedAt: now + 200 }, messages[1]!);
    await store.write(again);
  }

  it("follow every insert and status change, equal the trigger's rows counted, and are what its page reads", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    await triggerWithMessages(environmentId, transactionId);
    const stub = shardOf(environmentId, transactionId);
    const { kept, rows } = await tables(stub, environmentId, transactionId);
    expect(kept).toEqual({ failed: 10, sent: 20, sending: 10 });
    expect(kept).toEqual(rows);
    // The page reads the kept counts, not the rows: a count changed by hand shows.
    await addToKept(stub, "sent", 100);
    expect(Object.fromEntries(await new LogStore(env).counts(environmentId, transactionId))).toEqual({
      failed: 10,
      sent: 120,
      sending: 10,
    });
  });

  it("leave a trigger recorded before its shard's counts began to its rows", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const stub = shardOf(environmentId, transactionId);
    // As a shard upgraded while its index held rows: counts kept from a time after this trigger's record.
    await runInDurableObject(stub, (_o: LogShard, state) => {
      state.storage.sql.exec("UPDATE settings SET value = ? WHERE key = 'counts_since'", String(Date.now() + 3_600_000));
    });
    await triggerWithMessages(environmentId, transactionId);
    await addToKept(stub, "sent", 100);
    expect(Object.fromEntries(await new LogStore(env).counts(environmentId, transactionId))).toEqual({ failed: 10, sent: 20, sending: 10 });
  });

  it("begin at a shard's upgrade when its index holds rows, and from the start when it holds none", async () => {
    const since = (withRow: boolean) =>
      runInDurableObject(env.LOGS.get(env.LOGS.idFromName(unique("counts-since"))), (_o: LogShard, state) => {
        const sql = state.storage.sql;
        if (withRow) sql.exec("INSERT INTO trigger_messages VALUES ('e', 't', 's', 'mail', 'msg_1', 'sent', 1)");
        // A shard left by the code before: no schema version of this code, no counts.
        sql.exec("DELETE FROM settings WHERE key IN ('schema', 'counts_since')");
        sql.exec("DROP TABLE trigger_counts");
        const before = Date.now();
        new LogShard(state, env);
        const value = Number(sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = 'counts_since'").one().value);
        return { before, value, table: sql.exec("SELECT count(*) AS n FROM trigger_counts").one().n };
      });
    const upgraded = await since(true);
    expect(upgraded.value).toBeGreaterThanOrEqual(upgraded.before);
    expect(upgraded.table).toBe(0);
    expect((await since(false)).value).toBe(Number.MIN_SAFE_INTEGER);
  });

  it("lose an expired trigger's rows, and go with the last of them", async () => {
    const counts = await runInDurableObject(env.LOGS.get(env.LOGS.idFromName(unique("counts-expiry"))), (_o: LogShard, state) => {
      const index = new TriggerIndex(state.storage.sql);
      const row = (tx: string, subscriberId: string, status: string, createdAt: number) => ({
        environmentId: "e",
        transactionId: tx,
        subscriberId,
        stepId: "mail",
        messageId: `msg_${tx}_${subscriberId}`,
        status,
        createdAt,
      });
      index.apply(
        [row("old", "a", "sent", 1), row("old", "b", "failed", 2), row("mixed", "a", "sent", 3), row("mixed", "b", "sent", 50)],
        [],
      );
      const removed = [index.expire(10, 1), index.expire(10, 100)];
      return {
        removed,
        old: index.counts("e", "old", true),
        mixed: index.counts("e", "mixed", true),
        left: state.storage.sql.exec("SELECT tx, status, n FROM trigger_counts ORDER BY tx").toArray(),
      };
    });
    expect(counts.removed).toEqual([1, 2]);
    expect(counts.old).toEqual([]);
    expect(counts.mixed).toEqual([{ status: "sent", n: 1 }]);
    expect(counts.left).toEqual([{ tx: "mixed", status: "sent", n: 1 }]);
  });
});
