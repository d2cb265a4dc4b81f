// A trigger's chunk run in the invocation that recorded its fan-out reads nothing from the log
// (none of its chunks ran before); a redelivered job, whose fan-out was recorded, reads it.
import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, ledgerOf } from "../ledger";
import { interceptedLogs, loggedMessages } from "../log";

/** Bindings whose log shards count the `ofRecipients` reads they answer (and refuse every write with `down`). */
function countingLogs(reads: { n: number }, down = false): typeof env {
  const LOGS = interceptedLogs((key) => {
    if (key === "ofRecipients") reads.n++;
    if (down && (key === "write" || key === "writeJson")) return () => Promise.reject(new Error("log shard down"));
    return undefined;
  });
  return { ...env, LOGS };
}

async function consume(bodies: unknown[], bindings: typeof env, tag: string) {
  const batch = createMessageBatch(
    "clarion-delivery-0",
    bodies.map((body, i) => ({ id: `${tag}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings);
  return getQueueResult(batch, ctx);
}

describe("the recipients' reads of a trigger's first run", () => {
  it("skip the log when this invocation recorded the fan-out, and read it when the job comes again", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key, { steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hi" } }] });
    const subscriberId = unique("s");
    const { transactionId } = await acceptThenCrash(id, workflow.key, { subscriberId, email: "a@example.com" });
    const jobs = await runInDurableObject(ledgerOf(id, transactionId), (_ledger: TriggerLedger, state) => {
      const rows = state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ?", transactionId).toArray();
      state.storage.sql.exec("DELETE FROM outbox WHERE tx = ?", transactionId);
      return rows.map((row) => JSON.parse(row.job) as unknown);
    });

    // The first run records the fan-out, then its message writes fail: the job is retried.
    const first = { n: 0 };
    expect((await consume(jobs, countingLogs(first, true), `first-${transactionId}`)).retryMessages).toHaveLength(1);
    expect(first.n).toBe(0);

    // The Queue delivers the job again: its fan-out is recorded, so the chunk reads what the log
    // holds (the first run sent and reported before its write failed: the send is recorded from
    // the ledger's report, not made again).
    const again = { n: 0 };
    await consume(jobs, countingLogs(again), `again-${transactionId}`);
    expect(again.n).toBeGreaterThan(0);
    expect((await loggedMessages(id, { status: "sent" })).map((m) => m.subscriberId)).toEqual([subscriberId]);
  });
});
