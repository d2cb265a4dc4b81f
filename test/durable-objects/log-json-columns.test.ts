import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { logShardFor, subscriberPartition } from "../../src/durable-objects/client/log-naming";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { newId, newLogId } from "../../src/lib/ids";
import { unique } from "../factories";
import { logMessage } from "../log";

// Values JSON text can spell more than one way, or that a JSON writer might escape differently:
// the log stores each object as the text JSON.stringify made of it (records.ts `objectAt`).
const tricky = {
  quote: 'She said "hi" \\ and left',
  lines: "one\ntwo\tthree\r\u0001\u001f",
  unicode: "Café – 日本語 – 🚀 – \u2028\u2029",
  lone: "\ud800 alone",
  numbers: [0, -1, 0.1, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER, 2 ** 60, -0.000001],
  nested: { empty: {}, list: [], nothing: null, yes: true, no: false },
  html: '<a href="https://example.com/?a=1&b=2">Open</a>',
};

describe("the log's JSON columns", () => {
  it("store a message's content and context, a timeline entry's detail and a capture's content as JSON.stringify wrote them, and null as NULL", async () => {
    const environmentId = unique("env");
    const subscriberId = "json-columns";
    const now = Date.now();
    const id = newLogId("msg", subscriberPartition(environmentId, subscriberId));
    const store = new LogStore(env);
    const batch = store.batch();
    batch.insert(
      logMessage({ id, environmentId, subscriberId, createdAt: now, updatedAt: now, content: tricky, context: { team: 'a"b' } }),
    );
    const bare = newLogId("msg", subscriberPartition(environmentId, subscriberId));
    batch.insert(
      logMessage({ id: bare, environmentId, subscriberId, transactionId: "tx-bare", createdAt: now, content: null, context: null }),
    );
    batch.event({ id: newId("evt"), environmentId, messageId: id, status: "sent", at: now, detail: tricky });
    batch.event({ id: newId("evt"), environmentId, messageId: id, status: "queued", at: now - 1, detail: null });
    batch.capture({
      id: newId("cap"),
      environmentId,
      messageId: id,
      channel: "push",
      provider: "sandbox-push",
      to: "t",
      content: tricky,
      createdAt: now,
    });
    await store.write(batch);

    const stub = env.LOGS.get(env.LOGS.idFromName(logShardFor(env, subscriberPartition(environmentId, subscriberId))));
    const stored = await runInDurableObject(stub, (_shard: LogShard, state) => {
      const sql = state.storage.sql;
      return {
        messages: sql
          .exec<{ id: string; content: string | null; context: string | null }>(
            "SELECT id, content, context FROM messages WHERE env = ?",
            environmentId,
          )
          .toArray(),
        details: sql
          .exec<{ status: string; detail: string | null }>(
            "SELECT status, detail FROM message_events WHERE env = ? ORDER BY status",
            environmentId,
          )
          .toArray(),
        captures: sql.exec<{ content: string }>("SELECT content FROM sandbox_captures WHERE env = ?", environmentId).toArray(),
      };
    });
    const text = JSON.stringify(tricky);
    expect(stored.messages.find((m) => m.id === id)).toMatchObject({ content: text, context: JSON.stringify({ team: 'a"b' }) });
    expect(stored.messages.find((m) => m.id === bare)).toMatchObject({ content: null, context: null });
    expect(stored.details).toEqual([
      { status: "queued", detail: null },
      { status: "sent", detail: text },
    ]);
    expect(stored.captures).toEqual([{ content: text }]);

    // And read back through the store as the objects written.
    const [found] = await store.find(environmentId, [id]);
    expect(found?.message.content).toEqual(tricky);
    expect(found?.message.context).toEqual({ team: 'a"b' });
    expect(found?.events.find((e) => e.status === "sent")?.detail).toEqual(tricky);
  });
});
