import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type FeedRow, type LogMessage, LogStore, type LogTrigger } from "../../src/durable-objects/client/log-store";
import {
  SEND_ID_AHEAD_MS,
  generationAt,
  generationsWithin,
  logShardFor,
  providerPartition,
  subscriberPartition,
  triggerPartition,
} from "../../src/durable-objects/client/log-naming";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import type { Bindings } from "../../src/env";
import { timeOfId } from "../../src/lib/ids";
import { unique } from "../factories";
import { logMessage, notificationOf } from "../log";

// The log cut in one-day generations (LOG_GENERATION_DAYS); the Worker's own env keeps the flat
// layout. Fewer shards and days than the defaults: a read over every generation asks each shard of each.
const genEnv = { ...env, LOG_GENERATION_DAYS: "1", LOG_SHARDS: "4", RETENTION_DAYS: "10", ANALYTICS_RETENTION_DAYS: "12" };
const DAY = 86_400_000;
// Noon of today (UTC), so "n days ago" is well inside its own generation, never near a boundary.
const NOON = Math.floor(Date.now() / DAY) * DAY + DAY / 2;
const ago = (days: number, plusMs = 0) => Math.min(NOON, Date.now() - 60_000) - days * DAY + plusMs;

const randomHex = (n: number) => [...crypto.getRandomValues(new Uint8Array(n))].map((b) => (b % 16).toString(16)).join("");

/** A log id made at `at` (newLogId's layout: a UUIDv7 time, version 8, the partition in the last 32 bits). */
const idAt = (at: number, partition: number) =>
  `msg_${at.toString(16).padStart(12, "0")}8${randomHex(11)}${(partition >>> 0).toString(16).padStart(8, "0")}`;

const message = (environmentId: string, subscriberId: string, at: number, over: Partial<LogMessage> = {}): LogMessage =>
  logMessage({ id: idAt(at, subscriberPartition(environmentId, subscriberId)), environmentId, subscriberId, createdAt: at, ...over });

const trigger = (environmentId: string, acceptedAt: number, status: LogTrigger["status"] = "processing"): LogTrigger => ({
  environmentId,
  transactionId: unique("txn"),
  workflowKey: "wf",
  status,
  recipients: ["ada"],
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt,
  cancelledMessages: null,
  workflowVersion: null,
  tenantId: null,
  context: null,
  createdAt: acceptedAt,
  updatedAt: acceptedAt,
});

const logs = (env as unknown as Bindings).LOGS;
const stub = (name: string) => logs.get(logs.idFromName(name));

/** The name of a generation's shard, spelled out (not from log-naming.ts): rows found there prove the layout. */
const genShard = (partition: number, at: number) => `log/v1/g1d${Math.floor(at / DAY)}/4/${partition % 4}`;

/** Writes messages (with in-app notifications when `feed`) through a store of the generations layout. */
async function plant(store: LogStore, rows: LogMessage[], feed = false) {
  const batch = store.batch();
  for (const r of rows) {
    batch.insert(r);
    if (feed) batch.feed(notificationOf(r));
  }
  await store.write(batch);
}

describe("log generations (LOG_GENERATION_DAYS)", () => {
  it("reads the next generation while a send's id made up to SEND_ID_AHEAD_MS ahead of now may be in it", () => {
    // A large topic's send ids carry their trigger's time plus their chunk (message-writes.ts `sendMessageId`).
    const midnight = Math.ceil(Date.now() / DAY) * DAY;
    const prefixes = (now: number) => generationsWithin(genEnv, now, DAY).map((g) => g.prefix);
    expect(prefixes(midnight - SEND_ID_AHEAD_MS)[0]).toBe(generationAt(genEnv, midnight).prefix);
    expect(prefixes(midnight - SEND_ID_AHEAD_MS - 1)[0]).toBe(generationAt(genEnv, midnight - 1).prefix);
    // A bound before now is widened by the skew, not by this.
    expect(generationsWithin(genEnv, midnight - 1_000, DAY, undefined, midnight - 2 * 3_600_000 - 1)[0]!.prefix).toBe(
      generationAt(genEnv, midnight - 1).prefix,
    );
  });

  it("places a message, its feed row and its trigger index in the generation of its id's time", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const old = message(environmentId, "ada", ago(2));
    const fresh = message(environmentId, "ada", ago(0));
    await plant(store, [old, fresh], true);
    expect(timeOfId(old.id)).toBe(old.createdAt);

    const partition = subscriberPartition(environmentId, "ada");
    const oldShard = genShard(partition, old.createdAt);
    expect(logShardFor(genEnv, partition, old.createdAt)).toBe(oldShard);
    expect(oldShard).not.toBe(genShard(partition, fresh.createdAt));
    // Each generation's shard holds its own day's message, and the flat layout's shard none.
    const listed = async (name: string) =>
      ((await stub(name).list({ environmentId, subscriberId: "ada", limit: 10 })) as LogMessage[]).map((m) => m.id);
    expect(await listed(oldShard)).toEqual([old.id]);
    expect(await listed(genShard(partition, fresh.createdAt))).toEqual([fresh.id]);
    expect(await listed(logShardFor(env, partition))).toEqual([]);
    expect(((await stub(oldShard).feedList(environmentId, "ada", {}, 10)) as FeedRow[]).map((r) => r.id)).toEqual([old.id]);
    const triggerShard = genShard(triggerPartition(environmentId, old.transactionId), old.createdAt);
    expect(await stub(triggerShard).indexedCounts(environmentId, old.transactionId)).toEqual([{ status: "sent", n: 1 }]);

    // A change by id finds its generation: the older message's status moves there.
    const update = store.batch();
    update.update(old.id, { status: "delivered" }, old);
    await store.write(update);
    expect((await store.find(environmentId, [old.id]))[0]?.message.status).toBe("delivered");
    expect(await store.counts(environmentId, old.transactionId)).toEqual(new Map([["delivered", 1]]));
  });

  it("pages messages newest first over generations with one cursor, a subscriber's and every one's", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    // Three a day over three days, and one past retention that no page shows.
    const rows = [2, 1, 0].flatMap((d) => [0, 1, 2].map((k) => message(environmentId, `s${k}`, ago(d, k * 1000))));
    await plant(store, [message(environmentId, "s0", ago(15)), ...rows]);
    const expected = rows.map((m) => m.id).reverse();

    const pages = async (subscriberId?: string) => {
      const seen: string[] = [];
      let before: [number, string] | undefined;
      for (;;) {
        const page = await store.list({ environmentId, subscriberId, limit: 4, ...(before ? { before } : {}) });
        seen.push(...page.map((m) => m.id));
        if (page.length < 4) return seen;
        before = [page[3]!.createdAt, page[3]!.id];
      }
    };
    expect(await stub(genShard(subscriberPartition(environmentId, "s0"), ago(2))).list({ environmentId, limit: 5 })).toHaveLength(1);
    expect(await pages()).toEqual(expected);
    expect(await pages("s1")).toEqual(
      rows
        .filter((m) => m.subscriberId === "s1")
        .map((m) => m.id)
        .reverse(),
    );
    // A time range limits the generations asked (and the rows).
    const yesterday = await store.list({ environmentId, limit: 10, since: ago(1) - 60_000, until: ago(1) + 60_000 });
    expect(yesterday.map((m) => m.id)).toEqual(
      rows
        .slice(3, 6)
        .map((m) => m.id)
        .reverse(),
    );
  });

  it("reads a redelivered chunk's messages only in the generations since its trigger's acceptance when it is given", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const old = message(environmentId, "ada", ago(3));
    const recent = message(environmentId, "bob", ago(0));
    await plant(store, [old, recent]);
    const pairs: [string, string][] = [
      [old.transactionId, "ada"],
      [recent.transactionId, "bob"],
    ];
    // Without an acceptance every generation kept is asked; with one, only those since (give or take the skew).
    expect((await store.ofRecipients(environmentId, pairs)).map((m) => m.id).sort()).toEqual([old.id, recent.id].sort());
    expect((await store.ofRecipients(environmentId, pairs, ago(1))).map((m) => m.id)).toEqual([recent.id]);
    expect((await store.ofRecipients(environmentId, pairs, ago(3, -60_000))).map((m) => m.id).sort()).toEqual([old.id, recent.id].sort());
  });

  it("pages a subscriber's feed over generations and sums counts and stats over every generation kept", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const rows = [3, 2, 1, 0].flatMap((d) => [0, 1].map((k) => message(environmentId, "bea", ago(d, k * 1000), { channel: "in_app" })));
    // And one past retention, which neither pages nor counts show.
    await plant(store, [...rows, message(environmentId, "bea", ago(15), { channel: "in_app" })], true);
    const expected = rows.map((m) => m.id).reverse();
    expect(await stub(genShard(subscriberPartition(environmentId, "bea"), ago(3))).feedCounts(environmentId, "bea", {})).toMatchObject({
      total: 2,
    });

    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.feedList(environmentId, "bea", {}, 3, after);
      seen.push(...page.map((r) => r.id));
      if (page.length < 3) break;
      after = page[2]!.id;
    }
    expect(seen).toEqual(expected);
    expect(await store.feedCounts(environmentId, "bea", {})).toMatchObject({ total: 8, unread: 8 });
    // One notification by id, in an older generation: read, then counted as read.
    expect(await store.feedUpdateOne(environmentId, "bea", rows[0]!.id, { read: true }, Date.now())).toMatchObject({ id: rows[0]!.id });
    expect(await store.feedCounts(environmentId, "bea", {})).toMatchObject({ total: 8, unread: 7 });

    const stats = await store.stats(environmentId, ago(4), Date.now() + 1, DAY, "channel");
    expect(stats.reduce((n, r) => n + r.n, 0)).toBe(8);
    // A whole trigger's messages over two generations are counted together.
    const tx = unique("tx");
    await plant(store, [
      message(environmentId, "bea", ago(2), { transactionId: tx }),
      message(environmentId, "cy", ago(0), { transactionId: tx }),
    ]);
    expect(await store.counts(environmentId, tx)).toEqual(new Map([["sent", 2]]));
    expect(await store.counts(environmentId, tx, ago(2) - 1000)).toEqual(new Map([["sent", 2]]));
  });

  it("finds a trigger record and a provider ref from an older generation, and finishes it there", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const old = trigger(environmentId, ago(5));
    const young = trigger(environmentId, ago(0));
    await store.recordTriggers([old, young]);
    const shard = genShard(triggerPartition(environmentId, old.transactionId), old.acceptedAt);
    expect(await stub(shard).findTriggers(environmentId, [old.transactionId])).toHaveLength(1);

    expect((await store.findTriggers(environmentId, [old.transactionId]))[0]).toMatchObject({ acceptedAt: old.acceptedAt });
    expect((await store.listTriggers({ environmentId, limit: 1 })).map((t) => t.transactionId)).toEqual([young.transactionId]);
    expect(
      (await store.listTriggers({ environmentId, limit: 5, before: [young.acceptedAt, young.transactionId] })).map((t) => t.transactionId),
    ).toEqual([old.transactionId]);
    const { finished, legacy } = await store.finishTriggers(
      [{ environmentId, transactionId: old.transactionId, status: "completed" }],
      Date.now(),
    );
    expect(legacy).toEqual([]);
    expect(finished).toMatchObject([{ transactionId: old.transactionId, status: "completed" }]);

    const sent = message(environmentId, "dan", ago(5), { providerMessageId: "pm-old" });
    await plant(store, [sent]);
    const batch = store.batch();
    batch.ref({ providerMessageId: `pm-${environmentId}`, environmentId, messageId: sent.id });
    await store.write(batch);
    expect(await stub(genShard(providerPartition(`pm-${environmentId}`), sent.createdAt)).refs([`pm-${environmentId}`])).toHaveLength(1);
    expect(await store.refs([`pm-${environmentId}`])).toEqual([
      { providerMessageId: `pm-${environmentId}`, environmentId, messageId: sent.id },
    ]);
  });

  it("erases a subscriber and an environment in every generation", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const rows = [message(environmentId, "eve", ago(6)), message(environmentId, "eve", ago(3)), message(environmentId, "eve", ago(0))];
    await plant(store, [...rows, message(environmentId, "fay", ago(6))], true);
    expect(await stub(genShard(subscriberPartition(environmentId, "eve"), ago(6))).list({ environmentId, limit: 5 })).toHaveLength(1);
    const erased = await store.eraseSubscriber(environmentId, "eve");
    expect(erased.redacted).toBe(3);
    expect(erased.transactionIds.sort()).toEqual(rows.map((m) => m.transactionId).sort());
    await store.recordTriggers([trigger(environmentId, ago(6)), trigger(environmentId, ago(0))]);
    expect(await store.eraseEnvironment(environmentId)).toEqual({ messages: 4, triggers: 2, more: false });
    expect(await store.list({ environmentId, limit: 10 })).toEqual([]);
  });
});

describe("expiry of a whole generation", () => {
  /** Makes the shard's expiry due now and runs its alarm. */
  async function alarmNow(name: string) {
    const s = stub(name);
    await runInDurableObject(s, (_: LogShard, state: DurableObjectState) => {
      state.storage.sql.exec("UPDATE settings SET value = '0' WHERE key = 'expire_at'");
    });
    expect(await runDurableObjectAlarm(s)).toBe(true);
  }
  const rowsIn = (name: string, table: string) =>
    runInDurableObject(
      stub(name),
      (_: LogShard, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n,
    );

  it("empties a shard of a generation past retention in one go, unfinished triggers too, keeping its rollups until they expire", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const old = message(environmentId, "gil", ago(40));
    await plant(store, [old]);
    // An unfinished trigger record: the row-by-row pass keeps those, the whole generation's does not.
    const running = trigger(environmentId, ago(40));
    await store.recordTriggers([running]);
    const name = genShard(subscriberPartition(environmentId, "gil"), old.createdAt);
    const triggerShard = genShard(triggerPartition(environmentId, running.transactionId), running.acceptedAt);
    expect(await rowsIn(name, "messages")).toBeGreaterThan(0);

    await alarmNow(name);
    await alarmNow(triggerShard);
    expect(await rowsIn(name, "messages")).toBe(0);
    expect(await rowsIn(triggerShard, "triggers")).toBe(0);
    // The rollups stay for ANALYTICS_RETENTION_DAYS, and so does the next look at them.
    expect(await rowsIn(name, "rollup_messages")).toBeGreaterThan(0);
    const next = await runInDurableObject(stub(name), (_: LogShard, state: DurableObjectState) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(generationAt(genEnv, old.createdAt).end + 300 * DAY);
  });

  it("deletes the whole object once its rollups are past ANALYTICS_RETENTION_DAYS, leaving no alarm", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const ancient = message(environmentId, "hal", ago(500));
    await plant(store, [ancient]);
    const name = genShard(subscriberPartition(environmentId, "hal"), ancient.createdAt);
    await alarmNow(name);
    expect(await rowsIn(name, "messages")).toBe(0);
    expect(await rowsIn(name, "rollup_messages")).toBe(0);
    expect(await runInDurableObject(stub(name), (_: LogShard, state: DurableObjectState) => state.storage.getAlarm())).toBeNull();
  });

  it("archives a generation's rows to R2 before it empties it (ARCHIVE_TO_R2)", async () => {
    const store = new LogStore(genEnv);
    const environmentId = unique("env");
    const old = message(environmentId, "ivy", ago(45));
    await plant(store, [old], true);
    const running = trigger(environmentId, ago(45));
    await store.recordTriggers([running]);
    const name = genShard(subscriberPartition(environmentId, "ivy"), old.createdAt);
    // What the alarm runs with ARCHIVE_TO_R2=true.
    const expired = await stub(name).expire(Date.now(), true);
    expect(expired).toMatchObject({ messages: 1, feed: 1, more: false });
    expect(expired.archived).toBeGreaterThanOrEqual(2);
    const day = new Date(old.createdAt).toISOString().slice(0, 10);
    const object = await env.ARCHIVE.get(`${environmentId}/messages/${day}/${name.replaceAll("/", "-")}.ndjson`);
    expect(
      (await object!.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual([old.id]);
    expect(await env.ARCHIVE.get(`${environmentId}/in_app_notifications/${day}/${name.replaceAll("/", "-")}.ndjson`)).not.toBeNull();
    expect(await rowsIn(name, "messages")).toBe(0);
    // The trigger's shard too: its unfinished record goes with the generation.
    const triggerShard = genShard(triggerPartition(environmentId, running.transactionId), running.acceptedAt);
    await stub(triggerShard).expire(Date.now(), true);
    expect(await rowsIn(triggerShard, "triggers")).toBe(0);
  });

  it("leaves the flat layout to the row-by-row pass: an unfinished trigger stays", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const running = trigger(environmentId, ago(40));
    await store.recordTriggers([running]);
    const name = logShardFor(env, triggerPartition(environmentId, running.transactionId));
    await stub(name).expire(Date.now(), false);
    expect(await store.findTriggers(environmentId, [running.transactionId])).toHaveLength(1);
  });
});
