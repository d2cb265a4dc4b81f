import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { allLedgerNames, ledgerNameIn, ledgerNamesFor } from "../../src/durable-objects/client/naming";
import { TriggerStore } from "../../src/durable-objects/client/trigger-store";
import { loadWorkflowGates, prepareTrigger } from "../../src/features/triggers/accept";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { dataOf } from "../../src/features/data";

/** The shard count grew from 4 to 8: new triggers go to the 8-shard layout, the 4-shard one is still asked. */
const grown = { ...env, LEDGER_SHARDS: "8", LEDGER_SHARDS_PREVIOUS: "4" };
const before = { ...env, LEDGER_SHARDS: "4", LEDGER_SHARDS_PREVIOUS: undefined };
const after = { ...env, LEDGER_SHARDS: "8", LEDGER_SHARDS_PREVIOUS: undefined };

/** A trigger to one subscriber of a workflow that waits an hour, so it is still live when cancelled. */
async function entry(environmentId: string, workflowKey: string) {
  const gates = await loadWorkflowGates(dataOf(env, environmentId), [workflowKey]);
  const to = { subscriberId: unique("p"), email: "p@example.com" };
  const prepared = await prepareTrigger(environmentId, { workflow: workflowKey, to }, gates.get(workflowKey), new Set(), Date.now());
  return { record: prepared.record, fingerprint: prepared.fingerprint };
}

async function environmentWithWorkflow() {
  const { id, key } = await createSandboxEnvironment();
  await createWorkflow(key, {
    key: "later",
    steps: [
      { id: "wait", type: "delay", for: "PT1H" },
      { id: "mail", type: "email", template: { subject: "Later", text: "Hello" } },
    ],
  });
  return id;
}

const held = async (store: TriggerStore, ledger: string, environmentId: string, transactionId: string) =>
  (await store.snapshots(ledger, [{ environmentId, transactionId }]))[0] !== null;

describe("ledger layouts", () => {
  it("names the current layout's shard first, then the previous one's, once each", () => {
    expect(ledgerNamesFor(grown, "env_a", "tx-1")).toEqual([ledgerNameIn(8, "env_a", "tx-1"), ledgerNameIn(4, "env_a", "tx-1")]);
    expect(ledgerNamesFor({ LEDGER_SHARDS: "8", LEDGER_SHARDS_PREVIOUS: "8" }, "env_a", "tx-1")).toEqual([
      ledgerNameIn(8, "env_a", "tx-1"),
    ]);
    expect(ledgerNamesFor({}, "env_a", "tx-1")).toEqual([ledgerNameIn(32, "env_a", "tx-1")]);
  });

  it("lists every shard of both layouts for work that concerns a whole environment", () => {
    const names = allLedgerNames(grown);
    expect(names).toHaveLength(12);
    expect(names.filter((n) => n.startsWith("v1/8/"))).toHaveLength(8);
    expect(names.filter((n) => n.startsWith("v1/4/"))).toHaveLength(4);
    expect(allLedgerNames({})).toHaveLength(32);
  });
});

describe("TriggerStore after a change of shard count", () => {
  it("answers a transactionId the previous layout holds from there: a replay, or a conflict", async () => {
    const environmentId = await environmentWithWorkflow();
    const first = await entry(environmentId, "later");
    const { transactionId } = first.record;
    expect(await new TriggerStore(before).accept([first])).toEqual(["accepted"]);

    const store = new TriggerStore(grown);
    expect(await store.accept([first])).toEqual(["replayed"]);
    expect(await store.accept([{ ...first, fingerprint: "another body" }])).toEqual(["conflict"]);
    // Nothing was written to the new layout: the trigger still has one home.
    expect(await held(store, ledgerNameIn(8, environmentId, transactionId), environmentId, transactionId)).toBe(false);
    expect(await held(store, ledgerNameIn(4, environmentId, transactionId), environmentId, transactionId)).toBe(true);
  });

  it("puts a new transactionId in the current layout only", async () => {
    const environmentId = await environmentWithWorkflow();
    const fresh = await entry(environmentId, "later");
    const { transactionId } = fresh.record;
    const store = new TriggerStore(grown);
    expect(await store.accept([fresh])).toEqual(["accepted"]);
    expect(await held(store, ledgerNameIn(8, environmentId, transactionId), environmentId, transactionId)).toBe(true);
    expect(await held(store, ledgerNameIn(4, environmentId, transactionId), environmentId, transactionId)).toBe(false);
  });

  it("finds a trigger of the previous layout to cancel it, which it cannot once that layout is no longer named", async () => {
    const environmentId = await environmentWithWorkflow();
    const old = await entry(environmentId, "later");
    const { transactionId } = old.record;
    await new TriggerStore(before).accept([old]);

    expect(await new TriggerStore(after).cancel(environmentId, transactionId)).toEqual({ status: "not_found" });
    expect(await new TriggerStore(after).waits(environmentId, transactionId, 10)).toBeNull();
    expect(await new TriggerStore(grown).waits(environmentId, transactionId, 10)).not.toBeNull();
    expect(await new TriggerStore(grown).cancel(environmentId, transactionId)).toMatchObject({ status: "cancelled" });
  });
});
