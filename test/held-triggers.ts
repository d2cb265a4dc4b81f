import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { SETTLED_MESSAGE_STATUSES } from "../src/contract/statuses";
import type { AcceptEntry } from "../src/durable-objects/ledger/outcomes";
import type { Message } from "../src/features/messages/schemas";
import type { TriggerAccepted } from "../src/features/triggers/schemas";
import worker from "../src/index";
import { acceptInto, deliverHeldJobs } from "./ledger";
import { api, type ApiResponse } from "./request";

/**
 * The Worker's bindings with the ledger shards wrapped so that what a request accepts stays in
 * its shard's outbox (test/ledger.ts `acceptInto`) instead of leaving for the Queue moments later:
 * a test then runs those jobs through the consumer itself and reads once, never racing the Queue.
 */
export function holdingLedgers(accepted: { environmentId: string; transactionId: string }[]): typeof env {
  const ledgers = env.LEDGERS;
  const accept = async (name: string, entries: AcceptEntry[]) => {
    const outcomes = await acceptInto(name, entries);
    for (const [i, outcome] of outcomes.entries()) if (outcome === "accepted") accepted.push(entries[i]!.record);
    return outcomes;
  };
  const LEDGERS = {
    idFromName: (name: string) => ledgers.idFromName(name),
    get: (id: DurableObjectId) =>
      new Proxy(ledgers.get(id), { get: (stub, method) => (method === "accept" ? accept : Reflect.get(stub, method)) }),
  } as unknown as typeof ledgers;
  return { ...env, LEDGERS };
}

/**
 * POSTs to a route that accepts triggers (`POST /v1/trigger`, a workflow's test send, Novu's
 * `/novu/v1/events/trigger`, whose answer is typed by `T`) with the jobs it accepts held, then
 * hands them to the Queue consumer: when this returns, the delivery that is due now is done and
 * written (a delay or a digest still waits for its time).
 */
export async function postDelivered<T = TriggerAccepted>(key: string, path: string, body: unknown): Promise<ApiResponse<T>> {
  const { res, accepted } = await postHeld<T>(key, path, body);
  for (const { environmentId, transactionId } of accepted) await deliverHeldJobs(environmentId, transactionId);
  return res;
}

/** POSTs as `postDelivered` does but leaves what the route accepted in its ledger's outbox: the test delivers it (`deliverHeldJobs`) when it chooses. */
export async function postHeld<T = TriggerAccepted>(key: string, path: string, body: unknown) {
  const accepted: { environmentId: string; transactionId: string }[] = [];
  const bindings = holdingLedgers(accepted);
  const via = {
    async fetch(url: string, init: RequestInit) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`http://clarion.test${url}`, init), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    },
  };
  const res = await api<T>(key, "POST", path, body, { via });
  return { res, accepted };
}

/** Triggers through `POST /v1/trigger`, delivers it now (`postDelivered`), and answers its transactionId. */
export async function triggerDelivered(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await postDelivered(key, "/v1/trigger", body);
  if (res.status !== 202) throw new Error(`trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.transactionId;
}

const SETTLED: ReadonlySet<string> = new Set(SETTLED_MESSAGE_STATUSES);

/** A delivered trigger's messages, read once: there are `count`, each sent or final. */
export async function deliveredMessages(key: string, transactionId: string, count: number) {
  const res = await api<{ data: Message[] }>(key, "GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}&limit=200`);
  expect(res.body.data).toHaveLength(count);
  expect(res.body.data.filter((m) => !SETTLED.has(m.status))).toEqual([]);
  return res.body.data;
}
