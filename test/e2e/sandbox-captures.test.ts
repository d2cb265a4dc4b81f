import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sandboxMessages } from "../../src/db/schema";
import { createDb } from "../../src/db/client";
import { DEFAULT_LOG_SHARDS, subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { createSandboxEnvironment, unique } from "../factories";
import { loggedCaptureRows } from "../log";
import { api } from "../request";
import { createWorkflow, settledMessages, trigger } from "./helpers";

interface Captured {
  id: string;
  messageId: string;
  channel: string;
  provider: string;
  to: string;
  content: { subject?: string };
  createdAt: string;
}

const captured = async (key: string, query = "limit=500") =>
  (await api<{ data: Captured[] }>(key, "GET", `/v1/sandbox/messages?${query}`)).body.data;

/** Recipients whose partitions fall in more than one shard: a page of captures merges shards. */
const recipients = (n: number) => Array.from({ length: n }, (_, i) => ({ subscriberId: unique(`cap${i}`), email: `cap${i}@example.com` }));

async function delivered(n: number) {
  const { id, key } = await createSandboxEnvironment();
  await createWorkflow(key, {
    key: "hello",
    steps: [{ id: "mail", type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "x" } }],
  });
  const to = recipients(n);
  const transactionId = await trigger(key, { workflow: "hello", to, payload: {} });
  const messages = await settledMessages(key, transactionId, n);
  return { id, key, to, messages };
}

describe("sandbox captures in the log (GET /v1/sandbox/messages)", () => {
  it("keeps each send's capture with its message, in its subscriber's shard, and none in D1", async () => {
    const { id, key, to, messages } = await delivered(12);
    const shards = new Set(to.map((r) => subscriberPartition(id, r.subscriberId) % DEFAULT_LOG_SHARDS));
    expect(shards.size).toBeGreaterThan(1);

    const all = await captured(key);
    expect(all.map((c) => c.messageId).sort()).toEqual(messages.map((m) => m.id).sort());
    expect(all.map((c) => c.to).sort()).toEqual(to.map((r) => r.email).sort());
    const times = all.map((c) => Date.parse(c.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const m of messages.slice(0, 3)) {
      const [one, ...rest] = await captured(key, `messageId=${m.id}`);
      expect(rest).toEqual([]);
      expect(one).toMatchObject({ messageId: m.id, channel: "email", to: m.to, content: { subject: `Hi ${m.subscriberId}` } });
    }
    expect(await captured(key, "limit=5")).toEqual(all.slice(0, 5));

    const d1 = await env.DB.prepare("SELECT count(*) AS n FROM sandbox_messages WHERE environment_id = ?").bind(id).first<{ n: number }>();
    expect(d1?.n).toBe(0);
    // Another environment's captures are not read.
    const other = await createSandboxEnvironment();
    expect(await captured(other.key)).toEqual([]);
  });

  it("merges the captures D1 kept from before the log held them, newest first, until they expire", async () => {
    const { id, key, messages } = await delivered(4);
    const logged = await captured(key);
    // One a moment newer than the log's newest and one older than its oldest (a phase's captures share its time).
    const keptRow = (createdAt: number) => ({
      id: unique("cap"),
      environmentId: id,
      messageId: `msg_${crypto.randomUUID()}`,
      channel: "sms",
      provider: "sandbox-sms",
      to: "+41790000000",
      content: { body: "from 0.12" },
      createdAt: new Date(createdAt),
    });
    const newer = keptRow(Date.parse(logged[0]!.createdAt) + 1);
    const older = keptRow(Date.parse(logged[logged.length - 1]!.createdAt) - 1);
    await createDb(env.DB).insert(sandboxMessages).values([newer, older]);
    const merged = await captured(key);
    expect(merged.map((c) => c.id)).toEqual([newer.id, ...logged.map((c) => c.id), older.id]);
    expect(merged[0]).toEqual({ ...newer, createdAt: newer.createdAt.toISOString() });
    expect(await captured(key, `messageId=${older.messageId}`)).toEqual([merged[merged.length - 1]]);
    expect((await captured(key, "limit=3")).map((c) => c.id)).toEqual(merged.slice(0, 3).map((c) => c.id));
    expect(messages).toHaveLength(4);
  });

  it("expires captures after SANDBOX_RETENTION_DAYS (7), before their messages (30 days)", async () => {
    const { id, key, messages } = await delivered(3);
    const rows = await loggedCaptureRows(id);
    expect(rows).toHaveLength(3);
    // Times from the captures' own: this file's clock is not the only one that ran them.
    const made = Math.max(...rows.map((c) => c.createdAt));
    const store = new LogStore(env);
    await store.expire(made + 6 * 86_400_000);
    expect(await loggedCaptureRows(id)).toHaveLength(3);
    await store.expire(made + 7 * 86_400_000 + 1);
    expect(await loggedCaptureRows(id)).toEqual([]);
    expect(await captured(key)).toEqual([]);
    const listed = (await api<{ data: { id: string }[] }>(key, "GET", "/v1/messages?limit=50")).body.data;
    expect(listed.map((m) => m.id).sort()).toEqual(messages.map((m) => m.id).sort());
  });
});
