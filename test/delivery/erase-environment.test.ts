import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { INVOCATION_BUDGET } from "../../src/delivery/unpack";
import { DeliveryJob, eraseEnvironmentJobs, SHARDS_PER_ERASE_JOB } from "../../src/jobs/job";
import { PackedJobs } from "../../src/jobs/pack";
import { unique } from "../factories";
import { withEveryDeliveryQueue } from "../delivery-queues";

/** Log shards that count the erasure calls they get, and delivery Queues that keep what they are sent. */
function countingBindings() {
  const calls: string[] = [];
  const LOGS = {
    idFromName: (name: string) => name,
    get: (name: string) => ({
      eraseEnvironment: async () => {
        calls.push(name);
        return { messages: 0, triggers: 0, more: false };
      },
    }),
  } as unknown as typeof env.LOGS;
  const resent: unknown[] = [];
  const queue = {
    async sendBatch(messages: Iterable<MessageSendRequest<unknown>>) {
      for (const { body } of messages) {
        const pack = PackedJobs.safeParse(body);
        resent.push(...(pack.success ? pack.data.jobs : [body]));
      }
    },
  } as unknown as Queue<DeliveryJob>;
  return { calls, resent, bindings: withEveryDeliveryQueue({ ...env, LOGS }, queue) };
}

describe("the consumer's erasure jobs", () => {
  it("takes a pack's jobs up to the invocation's budget of shard calls and sends the rest back untried", async () => {
    const environmentId = unique("env");
    const prefix = `log/v1/test-${unique("g")}`;
    const slices = Array.from({ length: 150 }, (_, i) => ({
      prefix,
      count: 150 * SHARDS_PER_ERASE_JOB,
      from: i * SHARDS_PER_ERASE_JOB,
      to: (i + 1) * SHARDS_PER_ERASE_JOB,
    }));
    const jobs = eraseEnvironmentJobs(environmentId, slices);
    const { calls, resent, bindings } = countingBindings();
    const batch = createMessageBatch("clarion-delivery-0", [
      { id: "erase-pack", timestamp: new Date(), attempts: 1, body: { v: 1, type: "pack", jobs } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, bindings);
    const result = await getQueueResult(batch, ctx);
    // Each shard call is a subrequest: one invocation makes at most the budget's.
    expect(calls).toHaveLength(INVOCATION_BUDGET);
    expect(new Set(calls).size).toBe(INVOCATION_BUDGET);
    expect(resent).toEqual(jobs.slice(INVOCATION_BUDGET / SHARDS_PER_ERASE_JOB));
    expect(result.explicitAcks).toEqual(["erase-pack"]);
  });

  it("refuses a job that asks more shards than a job may", async () => {
    const job = { v: 1, type: "erase-environment", environmentId: "env_x", shards: { prefix: "log/v1", count: 200, from: 0, to: 200 } };
    expect(DeliveryJob.safeParse(job).success).toBe(false);
    expect(DeliveryJob.safeParse({ ...job, shards: { ...job.shards, to: SHARDS_PER_ERASE_JOB } }).success).toBe(true);
  });
});
