import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LogStore, type LogMessage } from "../../src/durable-objects/client/log-store";
import { logShardFor, subscriberPartition, triggerPartition } from "../../src/durable-objects/client/log-naming";
import { newLogId, partitionOfId, uuidv7 } from "../../src/lib/ids";
import { bitOf } from "../../src/durable-objects/log/records";
import { unique } from "../factories";
import { logMessage } from "../log";

const message = (environmentId: string, subscriberId: string, tx: string, at: number, over: Partial<LogMessage> = {}): LogMessage =>
  logMessage({
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId: tx,
    subscriberId,
    createdAt: at,
    updatedAt: at,
    ...over,
  });

describe("log ids", () => {
  it("carry their partition; ids from before the log carry none", () => {
    expect(partitionOfId(newLogId("msg", 0xdeadbeef))).toBe(0xdeadbeef);
    expect(partitionOfId(`msg_${uuidv7().replaceAll("-", "")}`)).toBeNull();
    const a = newLogId("msg", 7);
    const b = newLogId("msg", 7);
    expect(a < b).toBe(true);
  });
});

describe("LogStore", () => {
  it("writes a phase as one call per shard and reads a subscriber's page from one shard", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const batch = store.batch();
    const base = Date.now();
    const rows = Array.from({ length: 40 }, (_, i) => message(environmentId, `sub-${i % 8}`, `tx-${i}`, base + i));
    for (const r of rows) batch.insert(r);
    // The subscribers' shards, and the triggers' for their index (trigger-index.ts).
    const shards = new Set([
      ...rows.map((r) => logShardFor(env, subscriberPartition(environmentId, r.subscriberId))),
      ...rows.map((r) => logShardFor(env, triggerPartition(environmentId, r.transactionId))),
    ]);
    expect(batch.shards).toBe(shards.size);
    expect((await store.write(batch)).existing.size).toBe(0);

    const page = await store.list({ environmentId, limit: 10 });
    expect(page.map((m) => m.id)).toEqual(
      rows
        .slice(-10)
        .reverse()
        .map((m) => m.id),
    );
    const next = await store.list({ environmentId, limit: 10, before: [page[9]!.createdAt, page[9]!.id] });
    expect(next.map((m) => m.id)).toEqual(
      rows
        .slice(-20, -10)
        .reverse()
        .map((m) => m.id),
    );

    const mine = await store.list({ environmentId, subscriberId: "sub-3", limit: 50 });
    expect(mine.map((m) => m.transactionId)).toEqual(["tx-35", "tx-27", "tx-19", "tx-11", "tx-3"]);
    expect(await store.list({ environmentId: unique("env"), limit: 10 })).toEqual([]);
  });

  it("keeps one message per send identity and answers the stored id", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const first = message(environmentId, "s", "tx", 1);
    const again = { ...message(environmentId, "s", "tx", 2) };
    const b1 = store.batch();
    b1.insert(first);
    await store.write(b1);
    const b2 = store.batch();
    b2.insert(again);
    expect([...(await store.write(b2)).existing]).toEqual([[again.id, first.id]]);
  });

  it("applies updates and timelines; stats count every state reached; refs lead back", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const at = Date.UTC(2026, 10, 1, 10);
    const m = message(environmentId, "s1", "tx1", at, { status: "sending", provider: null });
    const w = store.batch();
    w.insert(m);
    await store.write(w);
    const u = store.batch();
    u.update(m.id, { status: "delivered", provider: "sendgrid", providerMessageId: "pm-1", updatedAt: at + 5 }, m);
    u.event({ id: "evt_1", environmentId, messageId: m.id, status: "sent", at: at + 1, detail: null });
    u.event({ id: "evt_2", environmentId, messageId: m.id, status: "delivered", at: at + 2, detail: { r: 1 } });
    u.ref({ providerMessageId: "pm-1", environmentId, messageId: m.id });
    await store.write(u);

    const [found] = await store.find(environmentId, [m.id]);
    expect(found?.message.status).toBe("delivered");
    expect(found?.events.map((e) => e.status)).toEqual(["sent", "delivered"]);
    expect(await store.refs(["pm-1", "pm-unknown"])).toEqual([{ providerMessageId: "pm-1", environmentId, messageId: m.id }]);
    expect(Object.fromEntries(await store.counts(environmentId, "tx1"))).toEqual({ delivered: 1 });

    const stats = await store.stats(environmentId, at - 3_600_000, at + 3_600_000, 3_600_000, "channel");
    expect(stats).toHaveLength(1);
    expect(stats[0]!.n).toBe(1);
    // Every state the message reached: its first status, its timeline's and its last.
    expect(stats[0]!.states).toBe(bitOf("sending") | bitOf("sent") | bitOf("delivered"));
  });

  it("applies a write's changes grouped by the columns they set, a message changed twice taking its later change", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const at = Date.UTC(2026, 10, 1, 11);
    // One subscriber, so every message shares a shard and its write.
    const [a, b, c] = ["tx-a", "tx-b", "tx-c"].map((tx) => message(environmentId, "same", tx, at, { status: "sending", provider: null }));
    const w = store.batch();
    for (const m of [a!, b!, c!]) w.insert(m);
    await store.write(w);

    const grouped = store.batch();
    grouped.update(a!.id, { status: "sent", providerMessageId: "pm-a", updatedAt: at + 1 }, a!);
    grouped.update(
      b!.id,
      { status: "failed", errorCode: "provider_error", errorMessage: "Nope", content: { html: "<b>y</b>" }, updatedAt: at + 2 },
      b!,
    );
    grouped.update(c!.id, { status: "sent", providerMessageId: "pm-c", updatedAt: at + 3 }, c!);
    grouped.ref({ providerMessageId: "pm-a", environmentId, messageId: a!.id });
    grouped.ref({ providerMessageId: "pm-c", environmentId, messageId: c!.id });
    await store.write(grouped);
    const byId = new Map((await store.find(environmentId, [a!.id, b!.id, c!.id])).map((f) => [f.message.id, f.message]));
    expect(byId.get(a!.id)).toMatchObject({ status: "sent", providerMessageId: "pm-a", updatedAt: at + 1, errorCode: null });
    expect(byId.get(b!.id)).toMatchObject({
      status: "failed",
      errorCode: "provider_error",
      errorMessage: "Nope",
      content: { html: "<b>y</b>" },
      updatedAt: at + 2,
    });
    expect(byId.get(c!.id)).toMatchObject({ status: "sent", providerMessageId: "pm-c", updatedAt: at + 3, attempts: 1 });
    expect((await store.refs(["pm-a", "pm-c"])).map((r) => r.messageId).sort()).toEqual([a!.id, c!.id].sort());

    const twice = store.batch();
    twice.update(a!.id, { status: "delivered", updatedAt: at + 10 }, a!);
    twice.update(c!.id, { status: "delivered", updatedAt: at + 11 }, c!);
    twice.update(a!.id, { status: "opened", updatedAt: at + 12 }, a!);
    await store.write(twice);
    const [again] = await store.find(environmentId, [a!.id]);
    expect(again?.message).toMatchObject({ status: "opened", updatedAt: at + 12 });
    const stats = await store.stats(environmentId, at - 3_600_000, at + 3_600_000, 3_600_000, "channel");
    // Every state each message reached, folded per message: a's five, b's two, c's three.
    expect(stats.reduce((n, r) => n + r.n, 0)).toBe(3);
    expect(stats.map((r) => r.states).sort()).toEqual(
      [
        bitOf("sending") | bitOf("sent") | bitOf("delivered") | bitOf("opened"),
        bitOf("sending") | bitOf("failed"),
        bitOf("sending") | bitOf("sent") | bitOf("delivered"),
      ].sort(),
    );
  });

  it("erases a subscriber in their partition's shard only", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const w = store.batch();
    w.insert(message(environmentId, "gone", "tx-a", 1));
    w.insert(message(environmentId, "stays", "tx-b", 2));
    await store.write(w);
    const erased = await store.eraseSubscriber(environmentId, "gone");
    expect(erased).toEqual({ redacted: 1, transactionIds: ["tx-a"] });
    const [gone] = await store.list({ environmentId, subscriberId: "gone", limit: 1 });
    expect(gone?.to).toBeNull();
    const [stays] = await store.list({ environmentId, subscriberId: "stays", limit: 1 });
    expect(stays?.to).toBe("a@example.com");
  });

  it("expires old rows, archiving them to R2 first as NDJSON when asked", async () => {
    // A shard count no other test uses: these objects hold this test's rows only. With the usual
    // sixteen, another file's expiry pass (the retention cron's, a shard's alarm) could take the
    // old row first, and this pass found other old rows but not its timeline (a flaky failure).
    const own = { ...env, LOG_SHARDS: "5" };
    const store = new LogStore(own);
    const environmentId = unique("env");
    const old = Date.UTC(2026, 0, 2, 12);
    const w = store.batch();
    const gone = message(environmentId, "s", "tx-old", old);
    const kept = message(environmentId, "s", "tx-new", Date.now());
    w.insert(gone);
    w.insert(kept);
    w.event({ id: "evt_old", environmentId, messageId: gone.id, status: "sent", at: old + 1, detail: null });
    await store.write(w);
    const name = logShardFor(own, subscriberPartition(environmentId, "s"));
    const expired = await env.LOGS.get(env.LOGS.idFromName(name)).expire(Date.now(), true);
    expect(expired).toMatchObject({ messages: 1, events: 1, archived: 2 });
    expect((await store.list({ environmentId, subscriberId: "s", limit: 5 })).map((m) => m.id)).toEqual([kept.id]);

    const object = await env.ARCHIVE.get(`${environmentId}/messages/2026-01-02/${name.replaceAll("/", "-")}.ndjson`);
    const lines = (await object!.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogMessage);
    expect(lines.map((m) => m.id)).toEqual([gone.id]);
    const events = await env.ARCHIVE.get(`${environmentId}/message_events/2026-01-02/${name.replaceAll("/", "-")}.ndjson`);
    expect(
      (await events!.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["evt_old"]);
    // Without archiving, a pass only deletes.
    expect(await env.LOGS.get(env.LOGS.idFromName(name)).expire(Date.now(), false)).toMatchObject({ archived: 0 });
    expect((await store.list({ environmentId, subscriberId: "s", limit: 5 })).map((m) => m.id)).toEqual([kept.id]);
  });
});
