// A page of a trigger's run view (ledger/recorded-runs.ts) reads its own recipients' outcomes and
// waits, walking the chunks: the same answer as reading every recipient's and filtering.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FanOutCoordinator } from "../../src/durable-objects/fan-out-coordinator";
import { DELIVERY_SCHEMA, DeliveryState } from "../../src/durable-objects/ledger/delivery-state";
import { recordedRuns } from "../../src/durable-objects/ledger/recorded-runs";
import { RECIPIENTS_OUTCOMES } from "../../src/durable-objects/ledger/run-steps";
import type { RecipientsJob } from "../../src/jobs/job";
import { unique } from "../factories";

const ENV = "env_runs";
const TX = "tx-runs";
/** Three chunks of 4, 3 and 5 recipients. */
const CHUNKS = [
  ["a0", "a1", "a2", "a3"],
  ["b0", "b1", "b2"],
  ["c0", "c1", "c2", "c3", "c4"],
];
const job = (subscriberIds: string[]): RecipientsJob => ({
  v: 1,
  type: "recipients",
  environmentId: ENV,
  transactionId: TX,
  chunk: 0,
  subscriberIds,
});

/** Runs `read` over a DeliveryState holding outcomes of every recipient (recorded out of fan-out order, some at one time) and two waits. */
function withRuns<T>(read: (delivery: DeliveryState, sql: SqlStorage) => T): Promise<T> {
  const stub = env.COORDINATORS.get(env.COORDINATORS.idFromName(unique("runs")));
  return runInDurableObject(stub, (_c: FanOutCoordinator, state) => {
    const sql = state.storage.sql;
    sql.exec(DELIVERY_SCHEMA);
    const delivery = new DeliveryState(sql);
    const everyone = CHUNKS.flat();
    [...everyone].reverse().forEach((s, i) => {
      delivery.runSteps.record(
        ENV,
        TX,
        [{ subscriberId: s, stepId: "pick", outcome: { status: "ran", path: `p${i}` } }],
        1_000 + Math.floor(i / 2),
      );
    });
    delivery.runSteps.record(ENV, TX, [{ subscriberId: "b1", stepId: "fetch", outcome: { status: "ran" } }], 999);
    delivery.park(ENV, TX, [
      { fireAt: 5_000, job: job(["a3", "b0"]), hold: { kind: "delay", stepId: "later" } },
      { fireAt: 6_000, job: job(["c4"]), hold: { kind: "delay", stepId: "later" } },
    ]);
    return read(delivery, sql);
  });
}

describe("a trigger's run view, a page at a time", () => {
  it("pages recipients across chunks with each page's own outcomes and waits, as reading every recipient's would", async () => {
    const pages = await withRuns((delivery) =>
      [0, 3, 6, 10, 12, 20].map((offset) => recordedRuns(delivery, ENV, TX, CHUNKS, { offset, limit: 4 })),
    );
    expect(pages.map((p) => [p.recipients, p.next])).toEqual([
      [["a0", "a1", "a2", "a3"], 4],
      [["a3", "b0", "b1", "b2"], 7],
      [["b2", "c0", "c1", "c2"], 10],
      [["c3", "c4"], null],
      [[], null],
      [[], null],
    ]);
    const second = pages[1]!;
    // In the order first recorded: b1's fetch (at 999) first, then the reverse fan-out order, ties by insertion.
    expect(second.steps.map((s) => [s.subscriberId, s.stepId])).toEqual([
      ["b1", "fetch"],
      ["b2", "pick"],
      ["b1", "pick"],
      ["b0", "pick"],
      ["a3", "pick"],
    ]);
    expect(second.waits.map((w) => w.subscriberId)).toEqual(["a3", "b0"]);
    expect(pages[3]!.waits.map((w) => w.subscriberId)).toEqual(["c4"]);
    expect(pages[3]!.steps.map((s) => s.subscriberId)).toEqual(["c4", "c3"]);
  });

  it("shows one recipient with ?subscriberId=, and none for a stranger", async () => {
    const [one, stranger] = await withRuns((delivery) => [
      recordedRuns(delivery, ENV, TX, CHUNKS, { offset: 0, limit: 20, subscriberId: "b1" }),
      recordedRuns(delivery, ENV, TX, CHUNKS, { offset: 0, limit: 20, subscriberId: "zz" }),
    ]);
    expect(one.recipients).toEqual(["b1"]);
    expect(one.next).toBeNull();
    expect(one.steps.map((s) => s.stepId)).toEqual(["fetch", "pick"]);
    expect(stranger).toMatchObject({ recipients: [], next: null, steps: [], waits: [] });
  });

  it("seeks each recipient of the page by key, not the whole trigger's outcomes", async () => {
    const plan = await withRuns((_d, sql) =>
      sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${RECIPIENTS_OUTCOMES}`, ENV, TX, "[]")
        .toArray()
        .map((r) => r.detail),
    );
    expect(
      plan.some((d) => /SEARCH run_steps USING INDEX sqlite_autoindex_run_steps_1 \(env=\? AND tx=\? AND subscriber_id=\?\)/.test(d)),
    ).toBe(true);
  });
});
