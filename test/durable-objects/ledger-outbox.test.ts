import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type DeliveryJob, type TriggerJob, triggerJob } from "../../src/jobs/job";
import type { PackedJobs } from "../../src/jobs/pack";
import { OUTBOX_SCHEMA, Outbox } from "../../src/durable-objects/ledger/outbox";
import { unique } from "../factories";

/** A Queue that keeps what it is sent, unpacked: the jobs in the order they left. */
function recordingQueue() {
  const sent: TriggerJob[] = [];
  const queue = {
    sendBatch: async (messages: Iterable<MessageSendRequest<PackedJobs | DeliveryJob>>) => {
      for (const { body } of messages) sent.push(...("jobs" in body ? (body.jobs as TriggerJob[]) : [body as TriggerJob]));
    },
  } as unknown as Queue<DeliveryJob>;
  return { sent, queues: { DELIVERY_QUEUE_0: queue, DELIVERY_QUEUE_1: queue } };
}

/** An object with the outbox table of its own (a ledger's storage, as the Outbox sees it). */
const freshObject = () => env.LEDGERS.get(env.LEDGERS.idFromName(unique("outbox")));

const job = (tx: string): TriggerJob => ({ ...triggerJob("env_outbox", tx), ledger: "v1/test/0" });

describe("ledger outbox", () => {
  it("sends what one call added in its order, a job an earlier instance left first, and never a row deleted since", async () => {
    const sent = await runInDurableObject(freshObject(), async (_o, state) => {
      state.storage.sql.exec(OUTBOX_SCHEMA);
      // Left by an instance that died before sending: this instance never wrote it.
      state.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", "left", JSON.stringify(job("left")));
      const { sent, queues } = recordingQueue();
      const outbox = new Outbox(state.storage, queues, 60_000);
      outbox.addAll(["a", "b", "c", "d"].map((tx) => ({ tx, job: job(tx) })));
      outbox.addAll([{ tx: "e", job: job("e") }]);
      state.storage.sql.exec("DELETE FROM outbox WHERE tx = 'c'");
      const flushed = await outbox.flush();
      // Sent rows are deleted by the alarm, not the flush: a second flush sends nothing again.
      const again = await outbox.flush();
      return { jobs: sent.map((j) => j.transactionId), flushed: flushed.jobs, again: again.jobs };
    });
    expect(sent).toEqual({ jobs: ["left", "a", "b", "d", "e"], flushed: 5, again: 0 });
  });

  it("does not send the jobs of a call whose transaction rolled back", async () => {
    const sent = await runInDurableObject(freshObject(), async (_o, state) => {
      state.storage.sql.exec(OUTBOX_SCHEMA);
      const { sent, queues } = recordingQueue();
      const outbox = new Outbox(state.storage, queues, 60_000);
      outbox.addAll([{ tx: "kept", job: job("kept") }]);
      expect(() =>
        state.storage.transactionSync(() => {
          outbox.addAll([{ tx: "lost", job: job("lost") }]);
          throw new Error("the call fails after its jobs were added");
        }),
      ).toThrow();
      // The rolled-back id is taken again by the next job: it goes out as that job.
      outbox.addAll([{ tx: "next", job: job("next") }]);
      await outbox.flush();
      return sent.map((j) => j.transactionId);
    });
    expect(sent).toEqual(["kept", "next"]);
  });
  it("sends rows another writer put between its own jobs, and not its own jobs deleted since, in id order", async () => {
    const sent = await runInDurableObject(freshObject(), async (_o, state) => {
      state.storage.sql.exec(OUTBOX_SCHEMA);
      const { sent, queues } = recordingQueue();
      const outbox = new Outbox(state.storage, queues, 60_000);
      const foreign = (tx: string) => state.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", tx, JSON.stringify(job(tx)));
      outbox.addAll(["a", "b"].map((tx) => ({ tx, job: job(tx) })));
      foreign("x");
      outbox.addAll(["c", "d"].map((tx) => ({ tx, job: job(tx) })));
      foreign("y");
      outbox.addAll([{ tx: "e", job: job("e") }]);
      // As many rows deleted as put in: the counts alone cannot tell the rounds apart.
      state.storage.sql.exec("DELETE FROM outbox WHERE tx IN ('b', 'd')");
      await outbox.flush();
      outbox.addAll([{ tx: "f", job: job("f") }]);
      foreign("z");
      await outbox.flush();
      return sent.map((j) => j.transactionId);
    });
    expect(sent).toEqual(["a", "x", "c", "y", "e", "f", "z"]);
  });
});
