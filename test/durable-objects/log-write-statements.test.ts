// A log shard's statements per write, for the writes of a single-trigger delivery and for a bulk
// of trigger records: each `sql.exec` costs the runtime about 10 µs beyond SQLite's own work
// (`npm run bench:runtime-costs`), so a write of a few statements per table, not per row, keeps a
// shard's CPU with its rows (rows and rollups are checked by log-write-rollups.test.ts and
// trigger-store.test.ts).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { indexedOf, type LogWrite } from "../../src/durable-objects/log/rows";
import type { LogTrigger } from "../../src/durable-objects/log/triggers-table";
import { unique } from "../factories";
import { logEvent as event, logMessage, notificationOf } from "../log";

/** Runs `call` on the shard named `name` with its SQLite's statements counted; answers the count. */
async function statementsOf(name: string, call: (shard: LogShard) => Promise<unknown>): Promise<number> {
  const stub = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
  return runInDurableObject(stub, async (shard: LogShard, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec;
    let n = 0;
    sql.exec = ((query: string, ...params: SqlStorageValue[]) => {
      n++;
      return exec.call(sql, query, ...params);
    }) as SqlStorage["exec"];
    try {
      await call(shard);
    } finally {
      delete (sql as Partial<SqlStorage>).exec;
      if (sql.exec !== exec) sql.exec = exec;
    }
    return n;
  });
}

/** An in-app step's phase for `n` subscribers of one shard: their messages and notifications, the first notification given twice. */
function inAppPhase(environmentId: string, at: number, n: number): LogWrite {
  const messages = Array.from({ length: n }, (_, i) =>
    logMessage({ environmentId, subscriberId: `sub-${i}`, createdAt: at, channel: "in_app", status: "sent" }),
  );
  const feed = messages.map((m, i) => notificationOf(m, { body: `Hello ${i}`, data: { quote: 'a "b" \\ é' } }));
  return {
    inserts: messages,
    events: messages.map((m) => event(m, "sent", at)),
    feed: [...feed, { ...feed[0]!, content: { body: "a retried send" } }],
    indexed: messages.map(indexedOf),
  };
}

/** A one-step email trigger's send phase: its message inserted as sent, with its first timeline and its provider's id. */
function sendPhase(environmentId: string, at: number): LogWrite {
  const m = logMessage({ environmentId, subscriberId: "ann", createdAt: at, status: "sent", providerMessageId: `p-${at}` });
  return {
    inserts: [m],
    events: [event(m, "queued", at), event(m, "sending", at), event(m, "sent", at + 40)],
    refs: [{ providerMessageId: `p-${at}`, environmentId, messageId: m.id }],
    indexed: [indexedOf(m)],
    outbox: { statements: [{ sql: "SELECT 1", params: [] }], facts: [] },
  };
}

const trigger = (environmentId: string, i: number, at: number): LogTrigger => ({
  environmentId,
  transactionId: `tx-${i}`,
  workflowKey: "welcome",
  status: "accepted",
  recipients: [{ subscriberId: `sub-${i}`, email: "a@example.com" }, `plain-${i}`],
  payload: { i },
  overrides: null,
  actor: { subscriberId: `actor-${i}` },
  acceptedAt: at,
  cancelledMessages: null,
  workflowVersion: 1,
  tenantId: null,
  context: null,
  createdAt: at,
  updatedAt: at,
});

describe("statements per log shard write", () => {
  it("a single-trigger send phase: one message, its timeline, its ref, index and outbox", async () => {
    const name = unique("log-statements");
    const environmentId = unique("env");
    const at = Date.now();
    // The first write of a shard names it (settings): measured from the second, as a warm shard runs.
    await statementsOf(name, (s) => s.write(name, sendPhase(environmentId, at - 1)));
    expect(await statementsOf(name, (s) => s.write(name, sendPhase(environmentId, at)))).toBe(9);
  });

  it("in-app notifications: a fixed number per write whatever their number, each stored once as given", async () => {
    const name = unique("log-statements-feed");
    const environmentId = unique("env");
    const at = Date.now();
    await statementsOf(name, (s) => s.write(name, inAppPhase(environmentId, at - 1, 1)));
    const one = await statementsOf(name, (s) => s.write(name, inAppPhase(environmentId, at, 1)));
    const many = await statementsOf(name, (s) => s.write(name, inAppPhase(environmentId, at + 1, 50)));
    expect(many).toBe(one);
    const stub = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    await stub.write(name, inAppPhase(environmentId, at + 2, 1));
    const stored = await runInDurableObject(stub, (_o: LogShard, state) =>
      state.storage.sql
        .exec<{ subscriber: string; content: string; tags: string; context: string; tenant: string | null; read_at: number | null }>(
          "SELECT subscriber, content, tags, context, tenant, read_at FROM in_app_notifications WHERE env = ? AND subscriber = 'sub-0' ORDER BY created_at",
          environmentId,
        )
        .toArray(),
    );
    // The first of each write's sub-0 notifications is kept, the retried one left out; content keeps its quotes and accents.
    expect(stored.map((r) => JSON.parse(r.content))).toEqual(
      [at - 1, at, at + 1, at + 2].map(() => ({ body: "Hello 0", data: { quote: 'a "b" \\ é' } })),
    );
    expect(stored[0]).toMatchObject({ tags: "[]", context: "", tenant: null, read_at: null });
    const total = await runInDurableObject(stub, (_o: LogShard, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM in_app_notifications WHERE env = ?", environmentId).one(),
    );
    expect(total.n).toBe(1 + 1 + 50 + 1);
  });

  it("trigger records: a fixed number per call, whatever the number of triggers", async () => {
    const name = unique("log-statements-triggers");
    const environmentId = unique("env");
    const at = Date.now();
    await statementsOf(name, (s) => s.writeTriggers(name, [trigger(environmentId, 0, at)]));
    const one = await statementsOf(name, (s) => s.writeTriggers(name, [trigger(environmentId, 1, at)]));
    const many = await statementsOf(name, (s) =>
      s.writeTriggers(
        name,
        Array.from({ length: 100 }, (_, i) => trigger(environmentId, 100 + i, at)),
      ),
    );
    expect({ one, many }).toEqual({ one: 3, many: 3 });
  });
});

describe("LogShard.writeTriggers in one statement per table", () => {
  it("answers and stores what one record per call does: new, replayed, finished, named twice", async () => {
    const environmentId = unique("env");
    const at = Date.now();
    const t = (i: number, over: Partial<LogTrigger> = {}) => ({ ...trigger(environmentId, i, at + i), ...over });
    // Stored before: one finished (a cancellation), one running.
    const before = [t(1, { status: "cancelled", cancelledMessages: 2 }), t(2, { status: "processing" })];
    const call = [
      t(3),
      t(1, { status: "processing", updatedAt: at + 50 }),
      t(2, { status: "completed", cancelledMessages: null, updatedAt: at + 60 }),
      t(4, { actor: null, recipients: ["plain"], tenantId: "acme", context: { region: "eu" } }),
      t(3, { status: "processing", workflowKey: "other", cancelledMessages: 5, updatedAt: at + 70 }),
      t(5, { overrides: { email: { subject: "Hi" } } }),
      t(3, { status: "failed", updatedAt: at + 80 }),
    ];
    const run = async (perCall: boolean) => {
      const name = unique("log-triggers-bulk");
      const stub = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
      await stub.writeTriggers(name, before);
      const answers: LogTrigger[] = [];
      if (perCall) for (const r of call) answers.push(...((await stub.writeTriggers(name, [r])) as LogTrigger[]));
      else answers.push(...((await stub.writeTriggers(name, call)) as LogTrigger[]));
      const silent = await stub.writeTriggers(name, call, false);
      const tables = await runInDurableObject(stub, (_o: LogShard, state) => {
        const dump = (q: string) => state.storage.sql.exec(q, environmentId).toArray();
        return {
          triggers: dump("SELECT * FROM triggers WHERE env = ? ORDER BY tx"),
          people: dump("SELECT * FROM trigger_people WHERE env = ? ORDER BY subscriber, tx"),
          audience: dump("SELECT * FROM rollup_audience WHERE env = ? ORDER BY hour, workflow, tenant"),
        };
      });
      return { answers, silent, tables };
    };
    const [bulk, single] = [await run(false), await run(true)];
    expect(bulk.answers.map((a) => [a.transactionId, a.status, a.cancelledMessages])).toEqual([
      ["tx-3", "accepted", null],
      ["tx-1", "cancelled", 2],
      ["tx-2", "completed", null],
      ["tx-4", "accepted", null],
      ["tx-3", "processing", 5],
      ["tx-5", "accepted", null],
      ["tx-3", "failed", 5],
    ]);
    expect(bulk.silent).toEqual([]);
    expect(bulk.tables.audience.reduce((n, r) => n + Number(r.triggers), 0)).toBe(5);
    expect(bulk).toEqual(single);
  });
});
