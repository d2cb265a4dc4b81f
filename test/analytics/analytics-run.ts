// A mixed run for the analytics tests, driven without the Queue: each trigger's jobs go through
// the Worker's consumer here, a retry asked for runs again at once (as the Queue would, later),
// and a crash right after the accept is test/ledger.ts's `acceptThenCrash`.
import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { MESSAGE_STATUSES, type MessageStatus } from "../../src/contract/statuses";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { Message, MessageWithEvents } from "../../src/features/messages/schemas";
import worker from "../../src/index";
import { createIntegration, fakeProviderScenario } from "../factories";
import { postHeld } from "../held-triggers";
import { ledgerOf } from "../ledger";
import { api } from "../request";
import { withEveryDeliveryQueue } from "../delivery-queues";

/**
 * Runs what a trigger's ledger holds through the consumer; what the consumer sends back to the
 * delivery Queue (a send to retry, after its delay) runs next, at once, up to `rounds` times.
 */
export async function deliverWithRetries(environmentId: string, transactionId: string, rounds = 5) {
  let jobs = await runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    const rows = state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ? ORDER BY id", transactionId).toArray();
    state.storage.sql.exec("DELETE FROM outbox WHERE tx = ?", transactionId);
    return rows.map((row) => JSON.parse(row.job) as unknown);
  });
  for (let attempt = 1; jobs.length > 0; attempt++) {
    if (attempt > rounds) throw new Error(`still retrying ${transactionId} after ${rounds} rounds`);
    const sent: unknown[] = [];
    const held = {
      send: async (body: unknown) => void sent.push(body),
      sendBatch: async (batch: Iterable<{ body: unknown }>) => void sent.push(...[...batch].map((m) => m.body)),
    } as unknown as typeof env.DELIVERY_QUEUE_0;
    const bindings = withEveryDeliveryQueue(env, held);
    const batch = createMessageBatch(
      "clarion-delivery-0",
      jobs.map((body, i) => ({ id: `run-${transactionId}-${attempt}-${i}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, bindings);
    const result = await getQueueResult(batch, ctx);
    if (result.retryMessages.length || result.retryBatch.retry) throw new Error(`the consumer asked to retry: ${JSON.stringify(result)}`);
    jobs = sent;
  }
}

/** POST /v1/trigger with its jobs held, then delivered (retries included); answers the transactionId. */
export async function triggerRun(key: string, body: Record<string, unknown>): Promise<string> {
  const { res, accepted } = await postHeld(key, "/v1/trigger", body);
  expect(res.status).toBe(202);
  for (const a of accepted) await deliverWithRetries(a.environmentId, a.transactionId);
  return res.body.transactionId;
}

/** Every message of the environment with its timeline, read through the API page by page. */
export async function allMessages(key: string): Promise<MessageWithEvents[]> {
  const list: Message[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: Message[]; nextCursor: string | null } } = await api(
      key,
      "GET",
      `/v1/messages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    list.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  return Promise.all(list.map(async (m) => (await api<MessageWithEvents>(key, "GET", `/v1/messages/${m.id}`)).body));
}

/** The states a message reached, as the log folds them: a bit per status of its timeline and its status. */
export const statesOf = (m: MessageWithEvents) =>
  [m.status, ...m.events.map((e) => e.status)].reduce((bits, s) => bits | (1 << MESSAGE_STATUSES.indexOf(s as MessageStatus)), 0);

export const resendCredentials = { apiKey: "re_test_123", from: "Acme <hi@acme.dev>" };

/** A tenant with its own email integration on the fake provider, answering as scripted. */
export async function tenantWithProvider(
  environment: { id: string; key: string },
  tenant: string,
  answers: { status: number; body?: unknown }[],
) {
  expect((await api(environment.key, "POST", "/v1/tenants", { id: tenant, name: tenant })).status).toBe(201);
  const scenario = fakeProviderScenario();
  await scenario.script(answers);
  await createIntegration(environment.id, {
    provider: "resend",
    channel: "email",
    credentials: resendCredentials,
    baseUrl: scenario.baseUrl,
    tenantId: tenant,
    settings: { maxAttempts: 2 },
  });
  return scenario;
}
