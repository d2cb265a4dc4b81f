import { SELF } from "cloudflare:test";
import { SETTLED_MESSAGE_STATUSES } from "../../src/contract/statuses";
import type { Message, MessageWithEvents } from "../../src/features/messages/schemas";
import { signStandardWebhook } from "../../src/providers/standard-webhooks";
import { api, eventually } from "../request";

export type MessageView = Message;
export type MessageDetail = MessageWithEvents;

const FINAL: ReadonlySet<string> = new Set(SETTLED_MESSAGE_STATUSES);

export { createWorkflow, trigger } from "../factories";

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

/** A Resend status webhook signed as Resend signs it (Standard Webhooks), under a fresh delivery id. */
export async function postResendWebhook(integrationId: string, body: string, secret: string) {
  const id = `msg_${crypto.randomUUID()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  return SELF.fetch(`http://clarion.test/v1/webhooks/resend/${integrationId}`, {
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
