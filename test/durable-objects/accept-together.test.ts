import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ledgerNameFor } from "../../src/durable-objects/client/naming";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { loadWorkflowGates, prepareTrigger } from "../../src/features/triggers/accept";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { ledgerOf } from "../ledger";
import { dataOf } from "../../src/features/data";

/**
 * An environment with a workflow that waits an hour (its triggers stay live), `count`
 * transactionIds that land in one ledger shard (so simultaneous calls reach one object), and
 * the accept entry of a trigger to its own subscriber.
 */
async function oneShard(workflowKey: string, count: number) {
  const { id, key } = await createSandboxEnvironment();
  await createWorkflow(key, {
    key: workflowKey,
    steps: [
      { id: "wait", type: "delay", for: "PT1H" },
      { id: "mail", type: "email", template: { subject: "S", text: "T" } },
    ],
  });
  const gates = await loadWorkflowGates(dataOf(env, id), [workflowKey]);
  const shared = unique("tx");
  const name = ledgerNameFor(env, id, shared);
  const txs: string[] = [];
  for (let i = 0; txs.length < count; i++) if (ledgerNameFor(env, id, `${shared}-${i}`) === name) txs.push(`${shared}-${i}`);
  const entry = async (transactionId: string, n = 1) => {
    const p = await prepareTrigger(
      id,
      { workflow: workflowKey, to: { subscriberId: `p-${transactionId}`, email: "p@example.com" }, transactionId, payload: { n } },
      gates.get(workflowKey),
      new Set(),
      Date.now(),
    );
    return { record: p.record, fingerprint: p.fingerprint };
  };
  return { shared, name, txs, entry, ledger: ledgerOf(id, shared) };
}

/** Accept calls that reach one ledger at once are written as one group; each keeps its own answers. */
describe("accepts written together", () => {
  it("answers each of many simultaneous calls for itself, a transactionId sent twice once accepted", async () => {
    const { shared, name, txs, entry, ledger } = await oneShard("together", 6);
    const [a, b, c, d, e, f] = txs as [string, string, string, string, string, string];
    const calls = [
      [await entry(a, 1), await entry(b, 1)],
      [await entry(c, 1)],
      // the same transactionId and body as the first call's first trigger: a replay
      [await entry(a, 1)],
      // the same transactionId with another body: a conflict
      [await entry(b, 2), await entry(d, 1)],
      [await entry(e, 1), await entry(f, 1), await entry(e, 1)],
    ];
    const answers = await runInDurableObject(ledger, (instance: TriggerLedger) =>
      Promise.all(calls.map((items) => instance.accept(name, items))),
    );
    expect(answers).toEqual([
      ["accepted", "accepted"],
      ["accepted"],
      ["replayed"],
      ["conflict", "accepted"],
      ["accepted", "accepted", "replayed"],
    ]);
    const stored = await runInDurableObject(ledger, (_i: TriggerLedger, state) => ({
      triggers: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM triggers WHERE tx LIKE ?", `${shared}-%`).one().n,
      jobs: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox WHERE tx LIKE ?", `${shared}-%`).one().n,
    }));
    expect(stored).toEqual({ triggers: 6, jobs: 6 });
  });

  it("fails a call alone: the calls written with it are stored, and nothing of the failed one is", async () => {
    const { shared, name, txs, entry, ledger } = await oneShard("apart", 3);
    const [a, b, c] = await Promise.all(txs.map((tx) => entry(tx)));
    // A record that cannot be stored (JSON.stringify throws on a BigInt) after one that can.
    const broken = { ...c!, record: { ...c!.record, payload: { n: 1n } as never } };
    const settled = await runInDurableObject(ledger, (instance: TriggerLedger) =>
      Promise.allSettled([instance.accept(name, [a!]), instance.accept(name, [b!, broken])]),
    );
    expect(settled[0]).toEqual({ status: "fulfilled", value: ["accepted"] });
    expect(settled[1]!.status).toBe("rejected");
    const stored = await runInDurableObject(ledger, (_i: TriggerLedger, state) =>
      state.storage.sql
        .exec<{ tx: string }>("SELECT tx FROM triggers WHERE tx LIKE ? ORDER BY tx", `${shared}-%`)
        .toArray()
        .map((r) => r.tx),
    );
    expect(stored).toEqual([txs[0]]);
  });
  it("answers one call mixing new, replayed, conflicting and repeated transactionIds each as one at a time would", async () => {
    const { shared, name, txs, entry, ledger } = await oneShard("mixed", 5);
    const [seen, clash, a, b, c] = txs as [string, string, string, string, string];
    await runInDurableObject(ledger, async (instance: TriggerLedger) =>
      instance.accept(name, [await entry(seen, 1), await entry(clash, 1)]),
    );
    const call = [
      await entry(a, 1),
      await entry(seen, 1), // stored before with this body: replayed
      await entry(clash, 2), // stored before with another body: conflict
      await entry(b, 1),
      await entry(a, 1), // this call's own `a` again: replayed
      await entry(b, 2), // this call's own `b` with another body: conflict
      await entry(c, 1),
      await entry(clash, 1), // the stored body after all: replayed
    ];
    const answers = await runInDurableObject(ledger, (instance: TriggerLedger) => instance.accept(name, call));
    expect(answers).toEqual(["accepted", "replayed", "conflict", "accepted", "replayed", "conflict", "accepted", "replayed"]);
    const stored = await runInDurableObject(ledger, (_i: TriggerLedger, state) => ({
      triggers: state.storage.sql
        .exec<{ tx: string; fingerprint: string; record: string }>(
          "SELECT tx, fingerprint, record FROM triggers WHERE tx LIKE ? ORDER BY tx",
          `${shared}-%`,
        )
        .toArray()
        .map((r) => ({ tx: r.tx, fingerprint: r.fingerprint, n: (JSON.parse(r.record) as { payload: { n: number } }).payload.n })),
      jobs: state.storage.sql
        .exec<{ tx: string }>("SELECT tx FROM outbox WHERE tx LIKE ? ORDER BY id", `${shared}-%`)
        .toArray()
        .map((r) => r.tx),
    }));
    // Each trigger keeps the body it was first accepted with; one job per accepted trigger, in the call's order.
    const first = new Map([
      [seen, await entry(seen, 1)],
      [clash, await entry(clash, 1)],
      [a, await entry(a, 1)],
      [b, await entry(b, 1)],
      [c, await entry(c, 1)],
    ]);
    expect(stored.triggers).toEqual(
      [...first].sort(([x], [y]) => (x < y ? -1 : 1)).map(([tx, e]) => ({ tx, fingerprint: e.fingerprint, n: 1 })),
    );
    expect(stored.jobs).toEqual([seen, clash, a, b, c]);
  });
});
