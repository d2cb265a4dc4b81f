import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { api } from "../request";
import { createSandboxEnvironment, postTrigger, unique } from "../factories";
import { outboxWrites } from "../ledger";
import { loggedCaptures, loggedMessages } from "../log";
import { createWorkflow, eventually } from "./helpers";

// More than two chunks of 50, so the broadcast runs through a FanOutCoordinator like a large topic.
const SUBSCRIBERS = 120;

/** Writes subscribers with a push token and a phone straight into D1 (fast set-up). */
async function seedSubscribers(environmentId: string, prefix: string, count: number) {
  const now = Date.now();
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < count; i += 20) {
    const ids = Array.from({ length: Math.min(20, count - i) }, (_, j) => `${prefix}-${String(i + j).padStart(4, "0")}`);
    statements.push(
      env.DB.prepare(
        `INSERT INTO subscribers (id, environment_id, subscriber_id, phone, created_at, updated_at) VALUES ${ids.map(() => "(?, ?, ?, '+41791234567', ?, ?)").join(", ")}`,
      ).bind(...ids.flatMap((id) => [`sub_${environmentId}_${id}`, environmentId, id, now, now])),
      env.DB.prepare(
        `INSERT INTO subscriber_channels (environment_id, subscriber_id, channel, provider, address, created_at) VALUES ${ids.map(() => "(?, ?, 'push', 'fcm', ?, ?)").join(", ")}`,
      ).bind(...ids.flatMap((id) => [environmentId, id, `token-${id}`, now])),
    );
  }
  await env.DB.batch(statements);
}

const broadcast = async (key: string, body: Record<string, unknown>) => {
  const res = await postTrigger(key, body, "/v1/trigger/broadcast");
  if (res.status !== 202) throw new Error(`broadcast answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.transactionId;
};

// Answers 404 until the consumer has recorded the trigger.
const statusOf = async (key: string, transactionId: string) =>
  (await api<Partial<TriggerStatusView>>(key, "GET", `/v1/trigger/${transactionId}`)).body;

/** What the sandbox captured for the trigger; `strangers` are messages to anyone not seeded under `prefix`. */
const capturedFor = async (environmentId: string, transactionId: string, prefix: string) => {
  const captured = await loggedCaptures(environmentId, transactionId);
  return {
    n: captured.length,
    distinct_subscribers: new Set(captured.map((c) => c.message.subscriberId)).size,
    strangers: captured.filter((c) => !c.message.subscriberId.startsWith(`${prefix}-`)).length,
  };
};

describe("broadcast through the Queue", () => {
  it(`reaches each of ${SUBSCRIBERS} subscribers once and no subscriber of another environment`, async () => {
    const [mine, other] = [await createSandboxEnvironment(), await createSandboxEnvironment()];
    const prefix = unique("b");
    await seedSubscribers(mine.id, prefix, SUBSCRIBERS);
    await seedSubscribers(other.id, unique("o"), 30);
    await createWorkflow(mine.key, {
      key: "news",
      steps: [{ id: "push", type: "push", template: { title: "News", body: "for {{ subscriber.subscriberId }}" } }],
    });
    const transactionId = await broadcast(mine.key, { workflow: "news" });

    const status = await eventually(async () => {
      const s = await statusOf(mine.key, transactionId);
      return s.status === "completed" ? s : null;
    }, 60_000);
    expect(status.messages).toEqual({ total: SUBSCRIBERS, byStatus: { sent: SUBSCRIBERS } });
    expect(await capturedFor(mine.id, transactionId, prefix)).toEqual({ n: SUBSCRIBERS, distinct_subscribers: SUBSCRIBERS, strangers: 0 });
    // Nothing recorded for this trigger in the other environment either.
    expect(await loggedMessages(other.id, { transactionId })).toEqual([]);
  }, 90_000);

  it("sends nothing new for a replay of the same transactionId", async () => {
    const { id, key } = await createSandboxEnvironment();
    const prefix = unique("r");
    await seedSubscribers(id, prefix, SUBSCRIBERS);
    await createWorkflow(key, { key: "news", steps: [{ id: "push", type: "push", template: { title: "News", body: "hi" } }] });
    const body = { workflow: "news", transactionId: unique("txn") };
    const transactionId = await broadcast(key, body);
    await eventually(async () => (await statusOf(key, transactionId)).status === "completed", 60_000);

    const written = await outboxWrites(id, transactionId);
    expect(await broadcast(key, body)).toBe(transactionId);
    // The 202 comes once the ledger has written what it will send: a replay that fanned out again would have written a job.
    expect(await outboxWrites(id, transactionId)).toBe(written);
    expect(await capturedFor(id, transactionId, prefix)).toEqual({ n: SUBSCRIBERS, distinct_subscribers: SUBSCRIBERS, strangers: 0 });
    expect((await statusOf(key, transactionId)).messages?.total).toBe(SUBSCRIBERS);
  }, 90_000);

  it("cancelled during a delay step, sends none of the steps after it", async () => {
    const { id, key } = await createSandboxEnvironment();
    const prefix = unique("c");
    await seedSubscribers(id, prefix, SUBSCRIBERS);
    await createWorkflow(key, {
      key: "remind",
      steps: [
        { id: "push", type: "push", template: { title: "News", body: "hi" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "Still there?" } },
      ],
    });
    const transactionId = await broadcast(key, { workflow: "remind" });
    await eventually(async () => {
      const s = await statusOf(key, transactionId);
      return s.messages?.byStatus.sent === SUBSCRIBERS && s.waitingTotal === SUBSCRIBERS;
    }, 60_000);

    const cancel = await api<{ status: string }>(key, "DELETE", "/v1/trigger", { transactionId });
    expect(cancel.body.status).toBe("cancelled");

    const after = await eventually(async () => {
      const s = await statusOf(key, transactionId);
      return s.messages?.byStatus.cancelled === SUBSCRIBERS ? s : null;
    }, 60_000);
    expect(after).toMatchObject({ status: "cancelled", waitingTotal: 0 });
    expect(after.messages).toEqual({ total: 2 * SUBSCRIBERS, byStatus: { sent: SUBSCRIBERS, cancelled: SUBSCRIBERS } });
    // Only the push of the first step reached the sandbox.
    expect(await capturedFor(id, transactionId, prefix)).toEqual({ n: SUBSCRIBERS, distinct_subscribers: SUBSCRIBERS, strangers: 0 });
  }, 120_000);
});
