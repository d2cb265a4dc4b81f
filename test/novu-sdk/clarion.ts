// Clarion's own API, beside the Novu SDKs: to set up workflows and to check what the SDK calls did.
import { readFileSync } from "node:fs";
import { inject } from "vitest";

export const base = inject("novuBase");
export const key = inject("novuKey");
const logFile = inject("novuLog");

/** The local Clarion's recent output: what a timed-out wait quotes, so a failure on CI says what the Worker did. */
const recentLog = () => {
  try {
    return readFileSync(logFile, "utf8").slice(-6000);
  } catch {
    return "(no wrangler log)";
  }
};
/** What Novu's SDKs are given as their base URL: Clarion's Novu adapter is on `/novu`. */
export const novuBase = `${base}/novu`;

let counter = 0;
/** Lower case: valid as a Clarion workflow or topic key. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

export async function clarion<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `ApiKey ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/**
 * Polls Clarion until `probe` answers. This suite talks HTTP to a separate `wrangler dev`, so it
 * cannot hand that process's Queue a batch as the Workers suite does: like `test/e2e/`, it waits.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n--- wrangler output ---\n${recentLog()}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** A workflow with the given steps (default: one email); returns its key. */
export async function workflow(
  steps: unknown[] = [{ id: "mail", type: "email", template: { subject: "Hi {{ payload.n }}", text: "Hello" } }],
) {
  const workflowKey = unique("wf");
  const res = await clarion("POST", "/v1/workflows", { key: workflowKey, name: workflowKey, steps });
  if (res.status !== 201) throw new Error(`workflow not created: ${JSON.stringify(res.body)}`);
  return workflowKey;
}

export interface SandboxMessage {
  messageId: string;
  channel: string;
  to: string;
  content: Record<string, unknown>;
}

/** What the sandbox providers captured for these addresses, once each has at least one. */
export async function delivered(addresses: string[], timeoutMs = 30_000): Promise<SandboxMessage[]> {
  return eventually(
    `sandbox sends to ${addresses.join(", ")}`,
    async () => {
      const { body } = await clarion<{ data: SandboxMessage[] }>("GET", "/v1/sandbox/messages?limit=500");
      const mine = body.data.filter((m) => addresses.includes(m.to));
      return addresses.every((a) => mine.some((m) => m.to === a)) ? mine : undefined;
    },
    timeoutMs,
  );
}

export async function sentTo(address: string): Promise<number> {
  const { body } = await clarion<{ data: SandboxMessage[] }>("GET", "/v1/sandbox/messages?limit=500");
  return body.data.filter((m) => m.to === address).length;
}

export interface Message {
  status: string;
  subscriberId: string;
  channel: string;
}

export const messagesOf = async (transactionId: string) =>
  (await clarion<{ data: Message[] }>("GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}`)).body.data;

export const mail = (name: string) => `${unique(name)}@example.com`;
