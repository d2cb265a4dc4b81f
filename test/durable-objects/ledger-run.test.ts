import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { DeliveryState } from "../../src/durable-objects/ledger/delivery-state";
import type { RunStepRow } from "../../src/durable-objects/ledger/run-steps";
import { ledgerOf } from "../ledger";
import { unique } from "../factories";

// A consumer phase's call carries ops of many triggers; the ledger reads and writes them together
// (one row read, one progress write, counts only where needed): each answer must stay what an op
// at a time gave.

/** Live triggers stored straight into one ledger shard (all of one environment and name prefix land in it). */
async function liveTriggers(count: number) {
  const environmentId = unique("env");
  const prefix = unique("tx");
  const ledger = ledgerOf(environmentId, prefix);
  const { ledgerNameFor } = await import("../../src/durable-objects/client/naming");
  const { env } = await import("cloudflare:test");
  const name = ledgerNameFor(env, environmentId, prefix);
  const txs: string[] = [];
  for (let i = 0; txs.length < count; i++) if (ledgerNameFor(env, environmentId, `${prefix}-${i}`) === name) txs.push(`${prefix}-${i}`);
  await runInDurableObject(ledger, (_l: TriggerLedger, state) => {
    for (const tx of txs)
      state.storage.sql.exec(
        "INSERT INTO triggers (env, tx, fingerprint, state, record, accepted_at, check_at) VALUES (?, ?, 'f', 'accepted', '{}', 0, 0)",
        environmentId,
        tx,
      );
  });
  return { environmentId, txs, ledger };
}

const rowsOf = (ledger: ReturnType<typeof ledgerOf>, environmentId: string, txs: string[]) =>
  runInDurableObject(ledger, (_l: TriggerLedger, state) =>
    txs.map(
      (tx) =>
        state.storage.sql
          .exec<{ state: string; check_at: number; finished: number }>(
            "SELECT state, check_at, finished_at IS NOT NULL AS finished FROM triggers WHERE env = ? AND tx = ?",
            environmentId,
            tx,
          )
          .toArray()[0] ?? null,
    ),
  );

describe("a ledger's delivery bookkeeping, many triggers per call", () => {
  it("records fan-outs as one at a time would: first once, completed once, the first chunks kept", async () => {
    const { environmentId, txs, ledger } = await liveTriggers(4);
    const [ran, empty, coordinated, twice] = txs as [string, string, string, string];
    const key = (transactionId: string) => ({ environmentId, transactionId });
    const answers = await runInDurableObject(ledger, async (instance: TriggerLedger, state) => {
      // `ran` fanned out before, and its only recipient is through: a redelivered fan-out completes it.
      state.storage.sql.exec("UPDATE triggers SET chunks = ? WHERE env = ? AND tx = ?", JSON.stringify([["x"]]), environmentId, ran);
      state.storage.sql.exec("INSERT INTO done (env, tx, chunk, subscriber_id) VALUES (?, ?, 0, 'x')", environmentId, ran);
      return instance.fanOut([
        { ...key(ran), chunks: [["other"]] },
        { ...key(empty), chunks: [] },
        { ...key(coordinated), chunks: null },
        { ...key(twice), chunks: [["a", "b"]] },
        { ...key(twice), chunks: [["c"]] },
        { ...key(ran), chunks: [["x"]] },
        { ...key("absent"), chunks: [["x"]] },
      ]);
    });
    expect(answers).toEqual([
      { state: "completed", chunks: [["x"]], completed: true, first: false },
      { state: "completed", chunks: [], completed: true, first: true },
      { state: "accepted", chunks: null, completed: false, first: true },
      { state: "accepted", chunks: [["a", "b"]], completed: false, first: true },
      { state: "accepted", chunks: [["a", "b"]], completed: false, first: false },
      { state: "completed", chunks: [["x"]], completed: false, first: false },
      { state: "failed", chunks: null, completed: false, first: false },
    ]);
  });

  it("answers each done op whether it finished its trigger, once, and shows progress for every trigger it touched", async () => {
    const { environmentId, txs, ledger } = await liveTriggers(5);
    const [one, split, repeated, other, untouched] = txs as [string, string, string, string, string];
    const key = (transactionId: string) => ({ environmentId, transactionId });
    await runInDurableObject(ledger, (instance: TriggerLedger) =>
      instance.fanOut([
        { ...key(one), chunks: [["a", "b"]] },
        { ...key(split), chunks: [["a"], ["b"]] },
        { ...key(repeated), chunks: [["a", "b"]] },
        { ...key(other), chunks: [["a"]] },
        { ...key(untouched), chunks: [["a"]] },
      ]),
    );
    const answers = await runInDurableObject(ledger, (instance: TriggerLedger, state) => {
      state.storage.sql.exec("UPDATE triggers SET check_at = 0 WHERE env = ?", environmentId);
      return instance.run([
        { kind: "done", ...key(one), chunk: 0, subscriberIds: ["a", "b"] },
        { kind: "done", ...key(split), chunk: 0, subscriberIds: ["a"] },
        // the same recipient twice is one recipient through, not two
        { kind: "done", ...key(repeated), chunk: 0, subscriberIds: ["a", "a"] },
        { kind: "done", ...key(one), chunk: 0, subscriberIds: ["a", "b"] },
        { kind: "done", ...key(split), chunk: 1, subscriberIds: ["b"] },
        { kind: "claim", ...key(other), send: ["a\u0000mail"], final: [] },
        { kind: "claim", ...key("absent"), send: ["a\u0000mail"], final: [] },
      ]);
    });
    expect(answers.map((a) => (a.kind === "done" ? a.completed : a.kind === "claim" ? a.result : a))).toEqual([
      true,
      false,
      false,
      false,
      true,
      { granted: ["a\u0000mail"], cancelled: [], busy: [], sent: [], final: [] },
      { granted: [], cancelled: ["a\u0000mail"], busy: [], sent: [], final: [] },
    ]);
    const rows = await rowsOf(ledger, environmentId, txs);
    expect(rows.map((r) => r && { state: r.state, finished: r.finished })).toEqual([
      { state: "completed", finished: 1 },
      { state: "completed", finished: 1 },
      { state: "accepted", finished: 0 },
      { state: "accepted", finished: 0 },
      { state: "accepted", finished: 0 },
    ]);
    // The watchdog looks again a stall window after this call at the triggers it touched, not at the others.
    expect(rows.map((r) => r!.check_at > 0)).toEqual([true, true, true, true, false]);
  });
  it("records control steps' outcomes together as one at a time would: the first final one wins, an open one is replaced", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const row = (subscriberId: string, stepId: string, status: string): RunStepRow =>
      ({ subscriberId, stepId, outcome: { status } }) as unknown as RunStepRow;
    const answers = await runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) => {
      const steps = new DeliveryState(state.storage.sql).runSteps;
      steps.record(environmentId, transactionId, [row("a", "wait", "waiting"), row("b", "branch", "taken")], 1);
      return [
        steps.record(
          environmentId,
          transactionId,
          [row("a", "wait", "matched"), row("b", "branch", "skipped"), row("c", "wait", "waiting")],
          2,
        ),
        // a pair named twice in one list: each answer is what its own write left
        steps.record(
          environmentId,
          transactionId,
          [row("c", "wait", "retrying"), row("c", "wait", "timed_out"), row("c", "wait", "matched")],
          3,
        ),
      ].map((rows) => rows.map((r) => `${r.subscriberId}/${r.stepId}:${(r.outcome as { status: string }).status}`));
    });
    expect(answers).toEqual([
      ["a/wait:matched", "b/branch:taken", "c/wait:waiting"],
      ["c/wait:retrying", "c/wait:timed_out", "c/wait:timed_out"],
    ]);
  });
});

describe("a trigger's count of recipients through", () => {
  // A coordinator asks after every chunk: the count is read from storage once per instance, then
  // kept by what each done op adds. It must stay what counting the rows gives.
  it("stays the rows' count through repeated, overlapping and forgotten done ops, and a new instance reads it again", async () => {
    const env = unique("env");
    const tx = unique("tx");
    const counts = await runInDurableObject(ledgerOf(env, tx), (_l: TriggerLedger, state) => {
      const stored = () =>
        Number(state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM done WHERE env = ? AND tx = ?", env, tx).one().n);
      const delivery = new DeliveryState(state.storage.sql);
      const seen: [number, number][] = [];
      const look = () => seen.push([delivery.doneCount(env, tx), stored()]);
      look();
      delivery.markDone(env, tx, 0, ["a", "b", "c"]);
      look();
      delivery.markDone(env, tx, 0, ["a", "b", "c"]);
      look();
      delivery.markDone(env, tx, 0, ["c", "d"]);
      delivery.markDone(env, tx, 1, ["a"]);
      look();
      const another = new DeliveryState(state.storage.sql);
      seen.push([another.doneCount(env, tx), stored()]);
      delivery.forget(env, tx);
      look();
      return seen;
    });
    expect(counts).toEqual([
      [0, 0],
      [3, 3],
      [3, 3],
      [5, 5],
      [5, 5],
      [0, 0],
    ]);
  });
});
