// Expiry takes a shard's oldest messages over all its environments, oldest first, in bounded
// passes, without an index by time alone: each environment's range of `messages_env_created`.
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { archiveAndExpire, ENVIRONMENTS, OLDEST_OF_ENVIRONMENT } from "../../src/durable-objects/log/expiry";
import type { LogEvent, LogMessage } from "../../src/durable-objects/log/rows";
import { newId } from "../../src/lib/ids";
import { unique } from "../factories";
import { logMessage } from "../log";

const DAY = 86_400_000;

it("expires the oldest messages of every environment first, a bounded pass at a time, with their timelines", async () => {
  const name = unique("log-expiry-order");
  const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
  const [a, b, c] = [unique("env"), unique("env"), unique("env")];
  const old = Date.UTC(2026, 0, 10);
  // Interleaved in time across three environments; two new ones stay.
  const rows: LogMessage[] = [
    logMessage({ environmentId: b, subscriberId: "s1", createdAt: old + 1 }),
    logMessage({ environmentId: a, subscriberId: "s2", createdAt: old + 2 }),
    logMessage({ environmentId: c, subscriberId: "s3", createdAt: old + 3 }),
    logMessage({ environmentId: a, subscriberId: "s4", createdAt: old + 4 }),
    logMessage({ environmentId: b, subscriberId: "s5", createdAt: old + 5 }),
    logMessage({ environmentId: a, subscriberId: "new", createdAt: Date.now() }),
    logMessage({ environmentId: c, subscriberId: "new", createdAt: Date.now() }),
  ];
  const events: LogEvent[] = rows.map((m) => ({
    id: newId("evt"),
    environmentId: m.environmentId,
    messageId: m.id,
    status: "sent",
    at: m.createdAt,
    detail: null,
  }));
  await shard.write(name, { inserts: rows, events });
  const pass = (maxRows: number) =>
    runInDurableObject(shard, async (_o: LogShard, state) => {
      const result = await archiveAndExpire(state.storage, undefined, { shard: name, before: old + DAY, maxRows });
      const left = state.storage.sql.exec<{ id: string }>("SELECT id FROM messages ORDER BY created_at, id").toArray();
      const timelines = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM message_events").one().n;
      return { result, left: left.map((r) => r.id), timelines };
    });
  const first = await pass(3);
  expect(first.result).toMatchObject({ messages: 3, events: 3, more: true });
  expect(first.left).toEqual(rows.slice(3).map((m) => m.id));
  expect(first.timelines).toBe(4);
  const second = await pass(3);
  expect(second.result).toMatchObject({ messages: 2, events: 2, more: false });
  expect(second.left).toEqual(rows.slice(5).map((m) => m.id));
  const third = await pass(3);
  expect(third.result).toMatchObject({ messages: 0, more: false });
});

it("finds a shard's environments and each one's oldest messages by seeks, not by a scan of the messages", async () => {
  const shard = env.LOGS.get(env.LOGS.idFromName(unique("log-expiry-plan")));
  const plans = await runInDurableObject(shard, (_o: LogShard, state) =>
    [
      [ENVIRONMENTS, []],
      [OLDEST_OF_ENVIRONMENT, ["env", 1, 10]],
    ].map(([query, params]) =>
      state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${query as string}`, ...(params as SqlStorageValue[]))
        .toArray()
        .map((r) => r.detail)
        .join("\n"),
    ),
  );
  const [environments, oldest] = plans;
  expect(environments).not.toMatch(/SCAN messages/);
  expect(environments).toMatch(/SEARCH messages USING COVERING INDEX \w+ \(env>\?\)/);
  expect(oldest).toMatch(/^SEARCH messages USING INDEX messages_env_created \(env=\? AND created_at<\?\)$/);
});
