// Wait steps end to end: a wait ends once, matched by a signal or a message status, or timed out
// when its alarm fires; the wake-ups go through the real routes (signals, the Inbox, the email
// open pixel) and the resumed jobs through the consumer, with no sleeping.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { api } from "../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { deliverHeldJobs, deliverWaitsDue, ledgerOf } from "../ledger";

const mail = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "email",
  template: { subject: id, text: `Hello from ${id}` },
  ...extra,
});
const text = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: "sms", template: { body: id }, ...extra });
const person = () => ({ subscriberId: unique("s"), email: "b@example.com", phone: "+41791234567" });
const HOUR = 3_600_000;

async function setUp(steps: unknown[]) {
  const env = await createSandboxEnvironment();
  const workflow = unique("wt").toLowerCase();
  const res = await createWorkflow(env.key, { key: workflow, steps });
  return { ...env, workflow, res };
}

/** A trigger's recorded control-step outcomes, by subscriber and step. */
const recorded = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ s: string; step: string; outcome: string }>(
          "SELECT subscriber_id AS s, step_id AS step, outcome FROM run_steps WHERE tx = ?",
          transactionId,
        )
        .toArray()
        .map((r) => [`${r.s}/${r.step}`, JSON.parse(r.outcome) as { status: string; outcome?: string; detail?: unknown }]),
    ),
  );

const unreleasedWaits = (environmentId: string, transactionId: string) =>
  runInDurableObject(
    ledgerOf(environmentId, transactionId),
    (_l: TriggerLedger, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM waits WHERE released = 0 AND tx = ?", transactionId).one().n,
  );

const signal = (key: string, tx: string, body: unknown, headers?: Record<string, string>) =>
  api<{ matched: number; evaluating: number }>(
    key,
    "POST",
    `/v1/trigger/${encodeURIComponent(tx)}/signals`,
    body,
    headers ? { headers } : undefined,
  );

const WAIT_PAID = { id: "paid", type: "wait", until: { signal: "invoice.paid" }, timeout: "PT1H" };
const AFTER = [
  mail("thanks", { if: { field: "steps.paid.outcome", op: "eq", value: "matched" } }),
  text("reminder", { if: { field: "steps.paid.outcome", op: "eq", value: "timed_out" } }),
];

describe("wait steps: signals", () => {
  it("a signal ends the wait matched, once; the run goes on at once", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    const to = person();
    const tx = await triggerDelivered(key, { workflow, to });
    expect((await recorded(id, tx))[`${to.subscriberId}/paid`]?.status).toBe("waiting");
    expect(await unreleasedWaits(id, tx)).toBe(1);
    const res = await signal(key, tx, { name: "invoice.paid", data: { amount: 10 } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ matched: 1, evaluating: 0 });
    expect(await unreleasedWaits(id, tx)).toBe(0);
    await deliverHeldJobs(id, tx);
    const messages = await deliveredMessages(key, tx, 2);
    expect(Object.fromEntries(messages.map((m) => [m.stepId, m.status]))).toMatchObject({ reminder: "skipped" });
    expect(messages.find((m) => m.stepId === "thanks")?.status).not.toBe("skipped");
    expect((await recorded(id, tx))[`${to.subscriberId}/paid`]).toMatchObject({
      status: "ran",
      outcome: "matched",
      detail: { signal: { name: "invoice.paid", data: { amount: 10 } } },
    });
    // A second signal finds nothing left waiting.
    expect((await signal(key, tx, { name: "invoice.paid" })).body).toMatchObject({ matched: 0 });
  });

  it("times out when nothing comes: the timeout's job records timed_out", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    const to = person();
    const tx = await triggerDelivered(key, { workflow, to });
    await deliverWaitsDue(id, tx, Date.now() + 2 * HOUR);
    const messages = await deliveredMessages(key, tx, 2);
    expect(messages.find((m) => m.stepId === "thanks")?.status).toBe("skipped");
    expect(messages.find((m) => m.stepId === "reminder")?.status).not.toBe("skipped");
    expect((await recorded(id, tx))[`${to.subscriberId}/paid`]).toEqual({ status: "ran", outcome: "timed_out" });
  });
});
