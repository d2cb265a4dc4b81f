// The D1 half of a delivery phase kept in the log shards' outbox (src/durable-objects/log/d1-outbox.ts):
// nothing lost when D1 refuses it after the log write, nothing twice when it is run again.
import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { MessageWrites } from "../../src/delivery/writes/message-writes";
import { allLogShards } from "../../src/durable-objects/client/log-naming";
import { LogStore } from "../../src/durable-objects/client/log-store";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { createWorkflow } from "../e2e/helpers";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { acceptThenCrash, ledgerOf } from "../ledger";
import { api } from "../request";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";

/** An environment whose endpoint takes every event, with a Resend integration on a fake that accepts one send. */
async function setUp() {
  const environment = await createEnvironment();
  const provider = fakeProviderScenario();
  await createIntegration(environment.id, {
    provider: "resend",
    channel: "email",
    credentials: { apiKey: "re_x", from: "a@acme.dev" },
    baseUrl: provider.baseUrl,
    primary: true,
  });
  const receiver = fakeProviderScenario();
  const res = await api<WebhookEndpointCreated>(environment.key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/events` });
  expect(res.status).toBe(201);
  await provider.script([{ status: 200, body: { id: unique("re") } }]);
  const workflow = await createWorkflow(environment.key, {
    steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hi" } }],
  });
  return { ...environment, workflow };
}

/** D1 as the consumer sees it, refusing every batch that writes messages' events while `down.on`. */
function d1RefusingMessageEvents(down: { on: boolean }): D1Database {
  const texts = new WeakMap<object, string>();
  const real = env.DB;
  const passThrough = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key);
    return typeof value === "function" ? value.bind(target) : value;
  };
  return new Proxy(real, {
    get(target, key) {
      if (key === "prepare")
        return (text: string) =>
          new Proxy(target.prepare(text), {
            get(statement, k) {
              if (k !== "bind") return passThrough(statement, k);
              return (...params: unknown[]) => {
                const bound = statement.bind(...params);
                texts.set(bound, text);
                return bound;
              };
            },
          });
      if (key === "batch")
        return async (statements: D1PreparedStatement[]) => {
          if (down.on && statements.some((s) => texts.get(s)?.includes("'messageId', f.message_id")))
            throw new Error("D1 refused the batch");
          return target.batch(statements);
        };
      return passThrough(target, key);
    },
  });
}

/** Hands the trigger's held jobs to the consumer with these bindings; a retry asked for is answered, not thrown. */
async function consumeHeld(environmentId: string, transactionId: string, bindings: typeof env) {
  const jobs = await runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    const rows = state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ? ORDER BY id", transactionId).toArray();
    state.storage.sql.exec("DELETE FROM outbox WHERE tx = ?", transactionId);
    return rows.map((row) => JSON.parse(row.job) as unknown);
  });
  const batch = createMessageBatch(
    "clarion-delivery-0",
    jobs.map((body, i) => ({ id: `held-${transactionId}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings);
  return getQueueResult(batch, ctx);
}

/** The outbound events D1 holds of a type for messages of a trigger. */
async function eventsOf(environmentId: string, type: string, transactionId: string) {
  const { results } = await env.DB.prepare(
    "SELECT id, data FROM events WHERE environment_id = ? AND type = ? AND json_extract(data, '$.transactionId') = ?",
  )
    .bind(environmentId, type, transactionId)
    .all<{ id: string; data: string }>();
  return results;
}

/** Outbox entries left in every log shard. */
async function pendingEntries(): Promise<number> {
  let left = 0;
  for (const name of allLogShards(env))
    left += await runInDurableObject(
      env.LOGS.get(env.LOGS.idFromName(name)),
      (_s, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM d1_outbox").one().n,
    );
  return left;
}

/** Runs every log shard's alarm (the outbox's, with the expiry's); answers how many entries are left. */
async function runShardAlarms(): Promise<number> {
  for (const name of allLogShards(env)) await runDurableObjectAlarm(env.LOGS.get(env.LOGS.idFromName(name)));
  return pendingEntries();
}

/** A phase that records one message skipped (no address) in the log: its writes and their batch. */
function skippedPhase(db: ReturnType<typeof createDb>, logs: LogStore, environmentId: string, transactionId: string) {
  const writes = new MessageWrites(db, new Date());
  const identity = {
    environmentId,
    transactionId,
    subscriberId: unique("s"),
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    workflowVersion: 1,
  };
  writes.insertFinal(identity, "skipped", {}, [{ status: "skipped", detail: { reason: "no_address" } }]);
  return { writes, batch: writes.logBatch(logs) };
}

describe("a phase's D1 half in the log shards' outbox", () => {
  it("is written by the shards' alarm when D1 refused it after the log took the rows", async () => {
    const { id: environmentId, workflow } = await setUp();
    const { transactionId } = await acceptThenCrash(environmentId, workflow.key, { subscriberId: unique("s"), email: "a@example.com" });
    const down = { on: true };
    await consumeHeld(environmentId, transactionId, { ...env, DB: d1RefusingMessageEvents(down) });
    expect(await eventsOf(environmentId, "message.sent", transactionId)).toEqual([]);
    expect(await pendingEntries()).toBeGreaterThan(0);

    down.on = false;
    expect(await runShardAlarms()).toBe(0);
    const [sent, ...more] = await eventsOf(environmentId, "message.sent", transactionId);
    expect(more).toEqual([]);
    expect(JSON.parse(sent!.data)).toMatchObject({
      transactionId,
      workflow: workflow.key,
      stepId: "mail",
      channel: "email",
      status: "sent",
    });
    // Again: the entry is gone, and its statements would add nothing.
    await runShardAlarms();
    expect(await eventsOf(environmentId, "message.sent", transactionId)).toHaveLength(1);
  });

  it("is settled by the writer once D1 took it, and an entry run again adds no event", async () => {
    const { id: environmentId, workflow } = await setUp();
    const { transactionId } = await acceptThenCrash(environmentId, workflow.key, { subscriberId: unique("s"), email: "a@example.com" });
    const result = await consumeHeld(environmentId, transactionId, env);
    expect(result.retryMessages).toEqual([]);
    expect(await eventsOf(environmentId, "message.sent", transactionId)).toHaveLength(1);
    // Settled at the end of the invocation: no alarm runs it again.
    expect(await pendingEntries()).toBe(0);
    expect(await runShardAlarms()).toBe(0);
    expect(await eventsOf(environmentId, "message.sent", transactionId)).toHaveLength(1);
  });

  it("adds nothing when a writer that D1 answered never settled its entry", async () => {
    const { id: environmentId } = await setUp();
    const transactionId = unique("tx");
    const db = createDb(env.DB);
    const logs = new LogStore(env);
    const { writes, batch } = skippedPhase(db, logs, environmentId, transactionId);
    writes.keepD1Half(batch);
    const { described, outbox } = await logs.write(batch);
    expect(outbox.length).toBeGreaterThan(0);
    await runBatch(db, writes.all(batch.legacy, described));
    expect(await eventsOf(environmentId, "message.skipped", transactionId)).toHaveLength(1);
    expect(await runShardAlarms()).toBe(0);
    expect(await eventsOf(environmentId, "message.skipped", transactionId)).toHaveLength(1);
  });

  it("keeps no entry for the events of an environment without endpoints, which D1 would not take either", async () => {
    const { id: environmentId } = await setUp();
    const db = createDb(env.DB);
    const logs = new LogStore(env);
    const phase = () => skippedPhase(db, logs, environmentId, unique("tx"));
    const kept = phase();
    kept.writes.keepD1Half(kept.batch);
    expect((await logs.write(kept.batch)).outbox.length).toBeGreaterThan(0);
    const left = phase();
    left.writes.keepD1Half(left.batch, new Set([environmentId]));
    expect((await logs.write(left.batch)).outbox).toEqual([]);
    // And D1's half of that phase leaves them out as well.
    expect(left.writes.all(left.batch.legacy, new Map(), new Set([environmentId]))).toEqual([]);
  });
});
