// A digest object keeps a row per thing, never one value for all: decisions and released jobs
// for the idempotency window, a window of any size, and an object written before 0.13 (one
// storage value) is moved into its tables on its first call.
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DigestEntry } from "../../src/durable-objects/digest-types";
import type { DigestObject } from "../../src/durable-objects/digest-object";
import type { RecipientsJob } from "../../src/jobs/job";
import type { JsonObject } from "../../src/contract/json";
import { unique } from "../factories";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const jobOf = (transactionId: string): RecipientsJob => ({
  v: 1,
  type: "recipients",
  environmentId: "env_digest",
  transactionId,
  chunk: 0,
  subscriberIds: ["ada"],
});
const entryOf = (transactionId: string, payload: JsonObject = { n: transactionId }): DigestEntry => ({
  transactionId,
  payload,
  job: jobOf(transactionId),
  waitingStepId: "after",
});
const digest = () => env.DIGESTS.get(env.DIGESTS.idFromName(unique("digest")));

describe("DigestObject", () => {
  it("forgets a trigger's decision after the idempotency window, and answers the same one within it", async () => {
    const stub = digest();
    // Times ahead of the clock, so no alarm fires during the test: the window is closed by hand.
    const start = Date.now();
    expect(await stub.add(entryOf("old"), "collect", 60_000, "fixed", start)).toBe("wait");
    await stub.close(start + 60_000);
    const later = start + DAY + HOUR;
    expect(await stub.add(entryOf("recent"), "collect", 60_000, "fixed", later)).toBe("wait");
    // The same trigger again (a redelivered job): the same answer, no second entry.
    expect(await stub.add(entryOf("recent"), "collect", 60_000, "fixed", later + 1)).toBe("wait");
    const rows = await runInDurableObject(stub, (_d: DigestObject, state) => ({
      decisions: state.storage.sql
        .exec<{ tx: string }>("SELECT tx FROM decisions ORDER BY tx")
        .toArray()
        .map((r) => r.tx),
      entries: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries").one().n,
    }));
    expect(rows).toEqual({ decisions: ["recent"], entries: 1 });
  });

  it("collects a window larger than one storage value may be (2 MB) and hands every event to the run that carries them", async () => {
    const stub = digest();
    const now = Date.now();
    const big = "x".repeat(100_000);
    for (let i = 0; i < 30; i++) expect(await stub.add(entryOf(`t${i}`, { i, big }), "collect", 60_000, "fixed", now + i)).toBe("wait");
    expect(await stub.pending("t7")).toEqual({ stepId: "after", subscriberIds: ["ada"], until: now + 60_000 });
    // The local runtime takes a value over 2 MB where Cloudflare refuses it: what is stored is measured here.
    const largest = await runInDurableObject(stub, async (_d: DigestObject, state) => ({
      value: JSON.stringify((await state.storage.get("digest")) ?? null).length,
      row: state.storage.sql.exec<{ n: number }>("SELECT max(length(entry)) AS n FROM entries").one().n,
    }));
    expect(largest.value).toBeLessThan(2_000_000);
    expect(largest.row).toBeLessThan(2_000_000);
    const jobs = await stub.close(now + 60_000);
    expect(jobs.map((j) => j.transactionId)).toEqual(Array.from({ length: 30 }, (_, i) => `t${i}`));
    expect(jobs[0]).toMatchObject({ digest: { stepId: "collect" } });
    expect(jobs[1]).toMatchObject({ digestedInto: "t0" });
    const collected = await stub.collected("t0");
    expect(collected?.count).toBe(30);
    expect(collected?.events.map((e) => e.i)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // The jobs the runs continued with, for the watchdog.
    expect(await stub.resume("t3")).toEqual({ job: jobs[3] });
    expect(await stub.pending("t7")).toBeNull();
  });

  it("moves an object's pre-0.13 state into its tables on the first call", async () => {
    const stub = digest();
    const now = Date.now();
    const legacy = {
      window: { closesAt: now + 30_000, stepId: "collect", entries: [entryOf("waiting")] },
      lastSentAt: now - 1_000,
      decisions: { waiting: "wait", earlier: "continue" },
      closed: { earlier: { events: [{ n: "earlier" }], count: 1, closedAt: now - 1_000 } },
      released: { gone: { job: jobOf("gone"), at: now - 5_000 } },
    };
    await runInDurableObject(stub, async (_d: DigestObject, state) => {
      await state.storage.put("digest", legacy);
    });
    expect(await stub.pending("waiting")).toEqual({ stepId: "after", subscriberIds: ["ada"], until: now + 30_000 });
    expect(await stub.add(entryOf("earlier"), "collect", 60_000, "lookback")).toBe("continue");
    expect(await stub.collected("earlier")).toEqual({ events: [{ n: "earlier" }], count: 1 });
    expect(await stub.resume("gone")).toEqual({ job: jobOf("gone") });
    // Look-back: something went out a second ago, so a new trigger waits in the open window.
    expect(await stub.add(entryOf("next"), "collect", 60_000, "lookback")).toBe("wait");
    const left = await runInDurableObject(stub, async (_d: DigestObject, state) => state.storage.get("digest"));
    expect(left).toBeUndefined();
    // An import cut off before the value's delete runs again on the next instance's first call: nothing twice.
    await runInDurableObject(stub, async (_d: DigestObject, state) => {
      await state.storage.put("digest", legacy);
    });
    await evictDurableObject(stub);
    expect(await stub.pending("waiting")).toEqual({ stepId: "after", subscriberIds: ["ada"], until: now + 30_000 });
    expect((await stub.close(now + 30_000)).map((j) => j.transactionId)).toEqual(["waiting", "next"]);
  });
});
