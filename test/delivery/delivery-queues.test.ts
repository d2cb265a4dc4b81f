// N delivery queues (src/jobs/queues.ts): the Worker finds every DELIVERY_QUEUE_<n> it binds,
// spreads triggers over them evenly, and consumes a job from any of them. The tests bind three
// (vitest.config.ts), one more than wrangler.toml, as `npm run deploy -- --delivery-queues 3` does.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OUTBOX_SCHEMA, Outbox } from "../../src/durable-objects/ledger/outbox";
import { type DeliveryJob, triggerJob } from "../../src/jobs/job";
import type { PackedJobs } from "../../src/jobs/pack";
import { deliveryQueueFor, deliveryQueues } from "../../src/jobs/queues";
import { uuidv7 } from "../../src/lib/ids";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { deliveredMessages, postHeld } from "../held-triggers";
import { deliverHeldJobs } from "../ledger";

/** A queue that counts the jobs it is sent, packed or not. */
function countingQueue() {
  const queue = {
    jobs: 0,
    send: async () => void queue.jobs++,
    sendBatch: async (messages: Iterable<MessageSendRequest<PackedJobs | DeliveryJob>>) => {
      for (const { body } of messages) queue.jobs += "jobs" in body ? body.jobs.length : 1;
    },
  };
  return queue;
}

const bindingsOf = (queues: object[]) =>
  Object.fromEntries(queues.map((q, n) => [`DELIVERY_QUEUE_${n}`, q])) as { DELIVERY_QUEUE_0: Queue<DeliveryJob> };

describe("delivery queues", () => {
  it("finds every delivery queue the Worker binds, in their numbers' order", () => {
    const found = deliveryQueues(env);
    expect(found).toHaveLength(3);
    expect(found).toEqual([env.DELIVERY_QUEUE_0, env.DELIVERY_QUEUE_1, Reflect.get(env, "DELIVERY_QUEUE_2")]);
  });

  it("stops at the first missing number", () => {
    const [a, b, c] = [countingQueue(), countingQueue(), countingQueue()];
    const bindings = { DELIVERY_QUEUE_0: a, DELIVERY_QUEUE_1: b, DELIVERY_QUEUE_3: c } as unknown as {
      DELIVERY_QUEUE_0: Queue<DeliveryJob>;
    };
    expect(deliveryQueues(bindings)).toEqual([a, b]);
  });

  it("spreads transaction ids made in the same millisecond evenly over 20 queues", () => {
    const queues = Array.from({ length: 20 }, countingQueue);
    const bindings = bindingsOf(queues);
    const now = Date.now();
    for (let i = 0; i < 20_000; i++) void deliveryQueueFor(bindings, uuidv7(now)).send(triggerJob("env", "tx"));
    const counts = queues.map((q) => q.jobs);
    // 1,000 each on average; a binomial spread keeps every queue within ±15 % (about 5 standard deviations).
    expect(Math.min(...counts)).toBeGreaterThan(850);
    expect(Math.max(...counts)).toBeLessThan(1150);
  });

  it("a ledger's outbox sends its rounds to every queue", async () => {
    const queues = [countingQueue(), countingQueue(), countingQueue()];
    await runInDurableObject(env.LEDGERS.get(env.LEDGERS.idFromName(unique("outbox"))), async (_o, state) => {
      state.storage.sql.exec(OUTBOX_SCHEMA);
      const outbox = new Outbox(state.storage, bindingsOf(queues), 60_000);
      // One trigger a round: a round goes to its first job's queue.
      for (let i = 0; i < 60; i++) {
        const tx = uuidv7();
        outbox.addAll([{ tx, job: { ...triggerJob("env", tx), ledger: "v1/test/0" } }]);
        await outbox.flush();
      }
    });
    expect(queues.map((q) => q.jobs).reduce((a, b) => a + b)).toBe(60);
    for (const queue of queues) expect(queue.jobs).toBeGreaterThan(5);
  });

  it("a job that comes from the third queue is delivered as from the first", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "third-queue" });
    const { res, accepted } = await postHeld(key, "/v1/trigger", {
      name: "third-queue",
      to: { subscriberId: unique("s"), email: "third@example.com" },
      payload: {},
    });
    expect(res.status).toBe(202);
    expect(accepted).toHaveLength(1);
    await deliverHeldJobs(id, accepted[0]!.transactionId, env, "clarion-delivery-2");
    const [message] = await deliveredMessages(key, accepted[0]!.transactionId, 1);
    expect(message!.status).toBe("sent");
  });
});
