import { api, eventually } from "../request";

export interface MessageView {
  id: string;
  transactionId: string;
  subscriberId: string;
  stepId: string;
  channel: string;
  provider: string | null;
  status: string;
  providerMessageId: string | null;
  to: string | null;
  subject: string | null;
  error: { code: string; message: string } | null;
  attempts: number;
}

export interface MessageDetail extends MessageView {
  content: Record<string, unknown> | null;
  events: { status: string; at: string; detail: Record<string, unknown> | null }[];
}

const FINAL = new Set(["sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled"]);

export const createWorkflow = (key: string, body: Record<string, unknown>) =>
  api(key, "POST", "/v1/workflows", { name: String(body.key), ...body });

export async function trigger(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await api<{ transactionId: string }>(key, "POST", "/v1/trigger", body);
  if (res.status !== 202) throw new Error(`trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.transactionId;
}

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
