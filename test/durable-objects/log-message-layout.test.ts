// A new log shard keeps its messages in a rowid table with a unique id (schema.ts), and a shard
// made before, with the table keyed by id, answers every write and read the same.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LogShard } from "../../src/durable-objects/log/log-shard";
import type { LogEvent, LogMessage, LogWrite } from "../../src/durable-objects/log/rows";
import { unique } from "../factories";
import { logEvent as event, logMessage } from "../log";

/** `messages` as shards made before this layout have it: keyed by id, without a rowid. */
const KEYED_BY_ID = `CREATE TABLE messages (
    id TEXT PRIMARY KEY, env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, workflow TEXT NOT NULL,
    step TEXT NOT NULL, channel TEXT NOT NULL, provider TEXT, integration TEXT, status TEXT NOT NULL,
    provider_message_id TEXT, "to" TEXT, subject TEXT, preview TEXT, content TEXT, error_code TEXT, error_message TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, states INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    workflow_version INTEGER, layout_version INTEGER
  ) WITHOUT ROWID`;

const tableSql = (sql: SqlStorage) =>
  sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages'").one().sql;

/** A shard whose `messages` is keyed by id, as older code left it, then started by this code. */
async function shardKeyedById(name: string) {
  const stub = env.LOGS.get(env.LOGS.idFromName(name));
  await runInDurableObject(stub, (_o: LogShard, state) => {
    const sql = state.storage.sql;
    sql.exec("DROP TABLE messages");
    sql.exec(KEYED_BY_ID);
    sql.exec("DELETE FROM settings WHERE key = 'schema'");
    // The start adds the later columns and the indexes to the older table.
    new LogShard(state, env);
    expect(tableSql(sql)).toMatch(/WITHOUT ROWID/);
  });
  return stub;
}

/** The same writes and reads on a shard: inserts, the same inserts again, a send identity under another id, a change and timeline entries. */
async function writeAndRead(stub: DurableObjectStub<LogShard>, name: string, environmentId: string, at: number) {
  const [a, b, c] = ["ann", "bob", "cy"].map((subscriberId, i) =>
    logMessage({ environmentId, subscriberId, createdAt: at + i, transactionId: "tx-1", id: `msg_${String(i).repeat(32)}` }),
  ) as [LogMessage, LogMessage, LogMessage];
  const first: LogWrite = { inserts: [a, b, c], events: [event(a, "queued", at), event(a, "sent", at + 5)] };
  const written = await stub.write(name, first);
  const again = await stub.write(name, first);
  const otherId = await stub.write(name, { inserts: [{ ...b, id: `msg_${"9".repeat(32)}` }] });
  await stub.write(name, { updates: [{ id: c.id, changes: { status: "failed", errorCode: "x", errorMessage: "y", updatedAt: at + 9 } }] });
  const strip = (list: { message: LogMessage; events: LogEvent[] }[]) =>
    list.map(({ message, events }) => ({ message, events: events.map(({ id: _id, ...e }) => e) }));
  return {
    written: [written.existing, again.existing, otherId.existing],
    found: strip(
      (await stub.find(environmentId, [c.id, a.id, `msg_${"9".repeat(32)}`])) as unknown as { message: LogMessage; events: LogEvent[] }[],
    ),
    listed: ((await stub.list({ environmentId, limit: 10 })) as unknown as LogMessage[]).map((m) => [m.id, m.status]),
    bySubscriber: ((await stub.list({ environmentId, subscriberId: "bob", limit: 10 })) as unknown as LogMessage[]).map((m) => m.id),
    recipients: (
      (await stub.ofRecipients(environmentId, [
        ["tx-1", "cy"],
        ["tx-1", "ann"],
      ])) as unknown as LogMessage[]
    ).map((m) => m.id),
    counts: await stub.counts(environmentId, "tx-1"),
  };
}

describe("a log shard's messages table", () => {
  it("is a rowid table with a unique id in a new shard, and seeks a message by the id's index", async () => {
    const stub = env.LOGS.get(env.LOGS.idFromName(unique("layout-new")));
    const seen = await runInDurableObject(stub, (_o: LogShard, state) => {
      const sql = state.storage.sql;
      return {
        table: tableSql(sql),
        rowid: sql.exec("SELECT rowid FROM messages").toArray().length,
        plan: sql
          .exec<{ detail: string }>("EXPLAIN QUERY PLAN SELECT * FROM messages WHERE id = ?", "msg_x")
          .toArray()
          .map((r) => r.detail),
      };
    });
    expect(seen.table).not.toMatch(/WITHOUT ROWID/);
    expect(seen.table).toMatch(/id TEXT NOT NULL UNIQUE/);
    expect(seen.rowid).toBe(0);
    expect(seen.plan.join(" ")).toMatch(/USING INDEX sqlite_autoindex_messages_1 \(id=\?\)/);
  });

  it("answers the same writes and reads the same in a shard made keyed by id", async () => {
    const at = Date.now();
    const environmentId = unique("env");
    const newName = unique("layout-rowid");
    const oldName = unique("layout-keyed");
    const fresh = await writeAndRead(env.LOGS.get(env.LOGS.idFromName(newName)), newName, environmentId, at);
    const older = await writeAndRead(await shardKeyedById(oldName), oldName, environmentId, at);
    expect(older).toEqual(fresh);
    // What the writes did, so that equal answers are not equally empty.
    // The same inserts again are the same rows; bob's identity under another id answers bob's first.
    expect(fresh.written.slice(0, 2)).toEqual([[], []]);
    expect(fresh.written[2]).toEqual([{ requested: `msg_${"9".repeat(32)}`, id: `msg_${"1".repeat(32)}` }]);
    expect(fresh.found.map((f) => [f.message.id, f.message.status, f.events.map((e) => e.status)])).toEqual([
      [`msg_${"2".repeat(32)}`, "failed", []],
      [`msg_${"0".repeat(32)}`, "sent", ["queued", "sent"]],
    ]);
    expect(fresh.listed).toHaveLength(3);
    expect(fresh.bySubscriber).toEqual([`msg_${"1".repeat(32)}`]);
    expect(fresh.recipients).toEqual([`msg_${"2".repeat(32)}`, `msg_${"0".repeat(32)}`]);
  });
});
