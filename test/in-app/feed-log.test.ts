import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { inboxFeed } from "../../src/durable-objects/client/inbox-feed";
import { logShardFor, subscriberPartition, triggerPartition } from "../../src/durable-objects/client/log-naming";
import { type FeedRow, type LogMessage, LogStore } from "../../src/durable-objects/client/log-store";
import type { InAppCounts, InAppNotification } from "../../src/features/in-app/schemas";
import { newLogId } from "../../src/lib/ids";
import { createEnvironment, unique } from "../factories";
import { loggedFeed, notificationOf } from "../log";
import { startSession, storeLegacyNotifications, storeNotifications } from "../novu/inbox-client";
import { api } from "../request";
import worker from "../../src/index";

type Page = { data: InAppNotification[]; nextCursor: string | null };

/** A subscriber (made by an Inbox session) with notifications in D1 (from before the feed left it) and in the log, interleaved in time. */
async function mixedFeed() {
  const { id: environmentId, key } = await createEnvironment();
  const subscriberId = unique("sub");
  await startSession(key, subscriberId);
  const [oldest] = await storeLegacyNotifications(environmentId, subscriberId, [{ tags: ["a"] }]);
  const [older] = await storeNotifications(environmentId, subscriberId, [{ tags: ["a"] }]);
  const [newer] = await storeLegacyNotifications(environmentId, subscriberId, [{ tags: ["b"] }]);
  const [newest] = await storeNotifications(environmentId, subscriberId, [{ tags: ["b"] }]);
  return {
    environmentId,
    key,
    subscriberId,
    legacy: [oldest!, newer!],
    logged: [older!, newest!],
    newestFirst: [newest!, newer!, older!, oldest!],
  };
}

const page = (key: string, subscriberId: string, query = "") =>
  api<Page>(key, "GET", `/v1/subscribers/${subscriberId}/notifications${query}`);
const counts = async (key: string, subscriberId: string, query = "") =>
  (await api<InAppCounts>(key, "GET", `/v1/subscribers/${subscriberId}/notifications/counts${query}`)).body;
const d1Row = (id: string) =>
  env.DB.prepare("SELECT read_at, seen_at, archived_at FROM in_app_notifications WHERE id = ?")
    .bind(id)
    .first<{ read_at: number | null; seen_at: number | null; archived_at: number | null }>();

describe("the in-app feed in the log, merged with D1's legacy rows", () => {
  it("pages both stores together newest first with one cursor, and sums their counts", async () => {
    const f = await mixedFeed();
    const first = await page(f.key, f.subscriberId, "?limit=3");
    expect(first.body.data.map((n) => n.id)).toEqual(f.newestFirst.slice(0, 3));
    const rest = await page(f.key, f.subscriberId, `?limit=3&cursor=${first.body.nextCursor}`);
    expect(rest.body.data.map((n) => n.id)).toEqual(f.newestFirst.slice(3));
    expect(rest.body.nextCursor).toBeNull();
    // A filter applies in both stores.
    expect((await page(f.key, f.subscriberId, "?tags=b")).body.data.map((n) => n.id)).toEqual([f.logged[1], f.legacy[1]]);
    expect(await counts(f.key, f.subscriberId)).toEqual({ total: 4, unread: 4, unseen: 4, archived: 0 });
    expect(await counts(f.key, f.subscriberId, "?tags=a")).toEqual({ total: 2, unread: 2, unseen: 2, archived: 0 });
  });

  it("changes a legacy notification in D1 and a log notification in its shard, and marks all in both", async () => {
    const f = await mixedFeed();
    const [legacy] = f.legacy;
    const [logged] = f.logged;
    for (const id of [legacy!, logged!])
      expect((await api(f.key, "PATCH", `/v1/subscribers/${f.subscriberId}/notifications/${id}`, { read: true })).body).toMatchObject({
        id,
        read: true,
        seen: true,
      });
    expect((await d1Row(legacy!))?.read_at).toEqual(expect.any(Number));
    const inLog = await loggedFeed(f.environmentId, f.subscriberId);
    expect(inLog.find((r) => r.id === logged)?.readAt).toEqual(expect.any(Number));
    // Only the two it named moved; D1 holds no log row and the log no D1 row.
    expect(inLog.map((r) => r.id).sort()).toEqual([...f.logged].sort());
    expect(await counts(f.key, f.subscriberId)).toEqual({ total: 4, unread: 2, unseen: 2, archived: 0 });

    const all = await api<{ updated: number; counts: InAppCounts }>(
      f.key,
      "POST",
      `/v1/subscribers/${f.subscriberId}/notifications/mark-all`,
      {
        archived: true,
      },
    );
    expect(all.body).toEqual({ updated: 4, counts: { total: 4, unread: 0, unseen: 0, archived: 4 } });
    expect((await d1Row(f.legacy[1]!))?.archived_at).toEqual(expect.any(Number));
  });

  it("deletes notifications of either kind by id and by filter", async () => {
    const f = await mixedFeed();
    const feed = inboxFeed(createDb(env.DB), new LogStore(env), f.environmentId, f.subscriberId);
    expect((await feed.remove([f.legacy[0]!, f.logged[0]!])).sort()).toEqual([f.legacy[0]!, f.logged[0]!].sort());
    expect(await d1Row(f.legacy[0]!)).toBeNull();
    expect((await feed.removeAll({ tags: ["b"] })).sort()).toEqual([f.legacy[1]!, f.logged[1]!].sort());
    expect(await feed.counts()).toEqual({ total: 0, unread: 0, unseen: 0, archived: 0 });
  });

  it("erasure removes the subscriber's notifications from the log and D1, and no one else's", async () => {
    const f = await mixedFeed();
    const other = unique("other");
    await storeNotifications(f.environmentId, other, [{}]);
    expect((await api(f.key, "DELETE", `/v1/subscribers/${f.subscriberId}`)).status).toBe(200);
    expect(await loggedFeed(f.environmentId, f.subscriberId)).toEqual([]);
    for (const id of f.legacy) expect(await d1Row(id)).toBeNull();
    expect(await loggedFeed(f.environmentId, other)).toHaveLength(1);
  });
});

describe("an environment's deletion", () => {
  it("empties its notifications in the log, and no other environment's", async () => {
    const [doomed, kept] = [unique("env"), unique("env")];
    for (const environmentId of [doomed, kept]) await storeNotifications(environmentId, "ada", [{}, {}]);
    await new LogStore(env).eraseEnvironment(doomed);
    expect(await loggedFeed(doomed, "ada")).toEqual([]);
    expect(await loggedFeed(kept, "ada")).toHaveLength(2);
  });
});

describe("the in-app feed's expiry", () => {
  const inApp = (environmentId: string, subscriberId: string, at: number): LogMessage => ({
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId: unique("tx"),
    subscriberId,
    workflowKey: "wf",
    stepId: "bell",
    channel: "in_app",
    provider: "clarion",
    integrationId: null,
    status: "delivered",
    providerMessageId: null,
    to: subscriberId,
    subject: null,
    preview: null,
    content: null,
    errorCode: null,
    errorMessage: null,
    attempts: 1,
    createdAt: at,
    updatedAt: at,
  });

  it("removes an expired notification with its message, archiving it to R2 first as NDJSON when asked", async () => {
    const store = new LogStore(env);
    const environmentId = unique("env");
    const old = inApp(environmentId, "s", Date.UTC(2026, 0, 2, 12));
    const kept = inApp(environmentId, "s", Date.now());
    const batch = store.batch();
    for (const m of [old, kept]) {
      batch.insert(m);
      batch.feed(notificationOf(m));
    }
    // The message and its notification share a shard: one call writes both (and the triggers'
    // shards get their index rows, trigger-index.ts).
    const shards = new Set([
      logShardFor(env, subscriberPartition(environmentId, "s")),
      ...[old, kept].map((m) => logShardFor(env, triggerPartition(environmentId, m.transactionId))),
    ]);
    expect(batch.shards).toBe(shards.size);
    await store.write(batch);
    expect((await loggedFeed(environmentId, "s")).map((r) => r.id)).toEqual([kept.id, old.id]);

    const name = logShardFor(env, subscriberPartition(environmentId, "s"));
    const shard = env.LOGS.get(env.LOGS.idFromName(name));
    expect(await shard.expire(Date.now(), true)).toMatchObject({ messages: 1, feed: 1, archived: 2 });
    expect((await loggedFeed(environmentId, "s")).map((r) => r.id)).toEqual([kept.id]);
    const object = await env.ARCHIVE.get(`${environmentId}/in_app_notifications/2026-01-02/${name.replaceAll("/", "-")}.ndjson`);
    const lines = (await object!.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as FeedRow);
    // Archived with its context (none here), as the feed keeps it.
    expect(lines).toEqual([{ ...notificationOf(old), context: "", tenantId: null }]);
    expect(await shard.expire(Date.now(), false)).toMatchObject({ feed: 0 });
  });
});

describe("D1's legacy in-app notifications", () => {
  it("are deleted by the retention cron after RETENTION_DAYS, as the log's expire", async () => {
    const f = await mixedFeed();
    await env.DB.prepare("UPDATE in_app_notifications SET created_at = ? WHERE id = ?")
      .bind(Date.now() - 31 * 86_400_000, f.legacy[0])
      .run();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), env);
    expect(await d1Row(f.legacy[0]!)).toBeNull();
    expect(await d1Row(f.legacy[1]!)).not.toBeNull();
    expect((await page(f.key, f.subscriberId)).body.data.map((n) => n.id)).toEqual(f.newestFirst.filter((id) => id !== f.legacy[0]));
  });
});
