import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, eventually } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, trigger } from "./helpers";

const MEMBERS = 2_000;

/** Writes the topic, subscribers with push tokens and their membership straight into D1 (fast set-up). */
async function seedTopic(environmentId: string, topicKey: string, count: number) {
  const now = Date.now();
  const statements: D1PreparedStatement[] = [
    env.DB.prepare("INSERT INTO topics (id, environment_id, key, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)").bind(
      `top_${topicKey}`,
      environmentId,
      topicKey,
      topicKey,
      now,
      now,
    ),
  ];
  for (let i = 0; i < count; i += 20) {
    const ids = Array.from({ length: Math.min(20, count - i) }, (_, j) => `fan-${topicKey}-${String(i + j).padStart(5, "0")}`);
    statements.push(
      env.DB.prepare(
        `INSERT INTO subscribers (id, environment_id, subscriber_id, created_at, updated_at) VALUES ${ids.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
      ).bind(...ids.flatMap((id) => [`sub_${id}`, environmentId, id, now, now])),
      env.DB.prepare(
        `INSERT INTO subscriber_channels (environment_id, subscriber_id, channel, provider, address, created_at) VALUES ${ids.map(() => "(?, ?, 'push', 'fcm', ?, ?)").join(", ")}`,
      ).bind(...ids.flatMap((id) => [environmentId, id, `token-${id}`, now])),
      env.DB.prepare(
        `INSERT INTO topic_members (environment_id, topic_key, subscriber_id, created_at) VALUES ${ids.map(() => "(?, ?, ?, ?)").join(", ")}`,
      ).bind(...ids.flatMap((id) => [environmentId, topicKey, id, now])),
    );
  }
  for (let i = 0; i < statements.length; i += 90) await env.DB.batch(statements.slice(i, i + 90));
}

describe("topic fan-out through the Queue", () => {
  it(`delivers a topic of ${MEMBERS} members completely and exactly once`, async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "broadcast",
      steps: [{ id: "push", type: "push", template: { title: "News", body: "for {{ subscriber.subscriberId }}" } }],
    });
    const topicKey = unique("topic").toLowerCase();
    await seedTopic(id, topicKey, MEMBERS);
    const transactionId = await trigger(key, { workflow: "broadcast", to: { topic: topicKey } });

    const status = await eventually(async () => {
      const res = await api<{ status: string; messages: { total: number; byStatus: Record<string, number> } }>(
        key,
        "GET",
        `/v1/trigger/${transactionId}`,
      );
      return res.body.status === "completed" ? res.body : null;
    }, 120_000);
    expect(status.messages).toEqual({ total: MEMBERS, byStatus: { sent: MEMBERS } });

    const captures = await env.DB.prepare(
      "SELECT count(*) AS n, count(DISTINCT m.subscriber_id) AS distinct_subscribers FROM sandbox_messages c JOIN messages m ON m.id = c.message_id WHERE m.transaction_id = ?",
    )
      .bind(transactionId)
      .first<{ n: number; distinct_subscribers: number }>();
    expect(captures).toEqual({ n: MEMBERS, distinct_subscribers: MEMBERS });
  }, 180_000);
});
