import { env, SELF } from "cloudflare:test";
import { SETTLED_MESSAGE_STATUSES } from "../../src/contract/statuses";
import type { Message, MessageWithEvents } from "../../src/features/messages/schemas";
import { signStandardWebhook } from "../../src/providers/standard-webhooks";
import { triggerRow } from "../factories";
import { api } from "../request";

export type MessageView = Message;
export type MessageDetail = MessageWithEvents;

const FINAL: ReadonlySet<string> = new Set(SETTLED_MESSAGE_STATUSES);

/**
 * Polls until `check` returns a value, for what the Queue consumer writes a moment later. Only the
 * end-to-end tests wait on the Queue like this; every other test drives the consumer, the request's
 * waitUntil or the alarm itself (test/ledger.ts, test/webhook-queue.ts) and reads once.
 */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { createWorkflow, trigger } from "../factories";

const FINAL_TRIGGER_STATUSES = ["completed", "failed", "cancelled"];

/**
 * The D1 record of a trigger once it is final (completed, failed or cancelled): a final status is
 * never replaced (src/delivery/writes/trigger-writes.ts), so the record is settled, with no quiet period
 * to wait out.
 */
export const settledTriggerRow = (environmentId: string, transactionId: string) =>
  eventually(async () => {
    const row = await triggerRow(environmentId, transactionId);
    return row && FINAL_TRIGGER_STATUSES.includes(row.status) ? row : null;
  });

/** Waits until the trigger has `count` messages and all of them are sent or final. */
export async function settledMessages(key: string, transactionId: string, count: number, timeoutMs = 20_000) {
  return eventually(async () => {
    const res = await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}&limit=200`);
    const data = res.body.data;
    return data.length === count && data.every((m) => FINAL.has(m.status)) ? data : null;
  }, timeoutMs);
}

export async function messageDetail(key: string, id: string) {
  const res = await api<MessageDetail>(key, "GET", `/v1/messages/${id}`);
  return res.body;
}

export const byStep = (messages: MessageView[], stepId: string, subscriberId?: string) => {
  const found = messages.find((m) => m.stepId === stepId && (!subscriberId || m.subscriberId === subscriberId));
  if (!found) throw new Error(`no message for step ${stepId}`);
  return found;
};

const viaSelf = { fetch: (path: string, init: RequestInit) => SELF.fetch(`http://clarion.test${path}`, init) };

/**
 * A Resend status webhook signed as Resend signs it (Standard Webhooks), under a fresh delivery id;
 * `via` sends it through a Worker with held Queues (test/webhook-queue.ts) instead of `SELF`.
 */
export async function postResendWebhook(integrationId: string, body: string, secret: string, via = viaSelf) {
  const id = `msg_${crypto.randomUUID()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  return via.fetch(`/v1/webhooks/resend/${integrationId}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "svix-id": id,
      "svix-timestamp": String(timestamp),
      "svix-signature": await signStandardWebhook(secret, id, timestamp, body),
    },
    body,
  });
}

/** Writes the topic, subscribers with push tokens and their membership straight into D1 (fast set-up). */
export async function seedTopic(environmentId: string, topicKey: string, count: number) {
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
