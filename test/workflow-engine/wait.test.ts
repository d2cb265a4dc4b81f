// Wait steps end to end: a wait ends once, matched by a signal or a message status, or timed out
// when its alarm fires; the wake-ups go through the real routes (signals, the Inbox, the email
// open pixel) and the resumed jobs through the consumer, with no sleeping.
import { env, runInDurableObject } from "cloudflare:test";
import { openPixelUrl } from "../../src/delivery/send/tracking-links";
import { afterEach, describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { api, expectProblem, fetchSettled } from "../request";
import { createSandboxEnvironment, createWorkflow, unique, workflowBody } from "../factories";
import type { WaitEntry } from "../../src/durable-objects/ledger/claims";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { deliverHeldJobs, deliverWaitsDue, holdOutbox, ledgerOf, outboxWrites, releaseWaits } from "../ledger";

const mail = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "email",
  template: { subject: id, text: `Hello from ${id}` },
  ...extra,
});
const text = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: "sms", template: { body: id }, ...extra });
const person = () => ({ subscriberId: unique("s"), email: "b@example.com", phone: "+41791234567" });
const HOUR = 3_600_000;

/** Shards whose outbox a test holds (see `triggerHeld`), let go after each test. */
const held: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const release of held.splice(0)) await release();
});

/**
 * Triggers and delivers what is due now (`triggerDelivered`), then holds its shard's outbox: the
 * job a signal or a message status puts there is run by the test's `deliverHeldJobs`, not raced
 * by the Queue's consumer (which would run it a second time under load).
 */
async function triggerHeld(environmentId: string, key: string, body: Record<string, unknown>): Promise<string> {
  const tx = await triggerDelivered(key, body);
  held.push(await holdOutbox(environmentId, tx));
  return tx;
}

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
    const tx = await triggerHeld(id, key, { workflow, to });
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
    const tx = await triggerHeld(id, key, { workflow, to });
    await deliverWaitsDue(id, tx, Date.now() + 2 * HOUR);
    const messages = await deliveredMessages(key, tx, 2);
    expect(messages.find((m) => m.stepId === "thanks")?.status).toBe("skipped");
    expect(messages.find((m) => m.stepId === "reminder")?.status).not.toBe("skipped");
    expect((await recorded(id, tx))[`${to.subscriberId}/paid`]).toEqual({ status: "ran", outcome: "timed_out" });
  });
});

const bell = (id: string) => ({ id, type: "in_app", template: { body: `Hello from ${id}` } });

describe("wait steps: conditions, idempotency, races, cancels", () => {
  const APPROVED = {
    id: "approved",
    type: "wait",
    until: { signal: "approval", if: { field: "signal.data.level", op: "gte", value: 2 } },
    timeout: "PT1H",
  };

  it("reads a wait's if against the signal: a signal that does not meet it leaves the recipient waiting", async () => {
    const { id, key, workflow } = await setUp([
      APPROVED,
      mail("go", { if: { field: "steps.approved.outcome", op: "eq", value: "matched" } }),
    ]);
    const to = person();
    const tx = await triggerHeld(id, key, { workflow, to });
    expect((await signal(key, tx, { name: "approval", data: { level: 1 } })).body).toMatchObject({ matched: 0, evaluating: 1 });
    await deliverHeldJobs(id, tx);
    expect((await recorded(id, tx))[`${to.subscriberId}/approved`]?.status).toBe("waiting");
    expect(await unreleasedWaits(id, tx)).toBe(1);
    // Another name, or another recipient's signal, wakes nothing.
    expect((await signal(key, tx, { name: "other" })).body).toMatchObject({ matched: 0, evaluating: 0 });
    expect((await signal(key, tx, { name: "approval", subscriberId: "someone-else" })).body).toMatchObject({ evaluating: 0 });
    expect((await signal(key, tx, { name: "approval", subscriberId: to.subscriberId, data: { level: 3 } })).body).toMatchObject({
      evaluating: 1,
    });
    await deliverHeldJobs(id, tx);
    expect((await recorded(id, tx))[`${to.subscriberId}/approved`]).toMatchObject({ status: "ran", outcome: "matched" });
    expect(await unreleasedWaits(id, tx)).toBe(0);
    expect((await deliveredMessages(key, tx, 1))[0]?.stepId).toBe("go");
  });

  it("a signal for an unknown transaction, or another environment's, is 404", async () => {
    const { key, workflow } = await setUp([WAIT_PAID]);
    expectProblem(await signal(key, "no-such-transaction", { name: "invoice.paid" }), 404, "transaction_not_found");
    const tx = await triggerDelivered(key, { workflow, to: person() });
    const other = await createSandboxEnvironment();
    expectProblem(await signal(other.key, tx, { name: "invoice.paid" }), 404, "transaction_not_found");
    expect((await signal(key, tx, { name: "bad name!" })).status).toBe(422);
  });

  it("an Idempotency-Key replay answers the first answer and wakes nothing again", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    const tx = await triggerHeld(id, key, { workflow, to: [person(), person()] });
    const headers = { "idempotency-key": unique("k") };
    const first = await signal(key, tx, { name: "invoice.paid" }, headers);
    expect(first.body).toMatchObject({ matched: 2 });
    const writes = await outboxWrites(id, tx);
    const replay = await signal(key, tx, { name: "invoice.paid" }, headers);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(await outboxWrites(id, tx)).toBe(writes);
    const signals = await runInDurableObject(
      ledgerOf(id, tx),
      (_l: TriggerLedger, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM signals WHERE tx = ?", tx).one().n,
    );
    expect(signals).toBe(1);
    await deliverHeldJobs(id, tx);
    expect((await deliveredMessages(key, tx, 4)).filter((m) => m.stepId === "thanks" && m.status !== "skipped")).toHaveLength(2);
  });

  it("a signal racing the timeout ends the wait once, whichever comes first", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    // The timeout fired first: its job is on its way, the signal finds nothing waiting.
    const late = person();
    const tx = await triggerHeld(id, key, { workflow, to: late });
    expect(await releaseWaits(id, tx, Date.now() + 2 * HOUR)).toBe(1);
    expect((await signal(key, tx, { name: "invoice.paid" })).body).toMatchObject({ matched: 0 });
    await deliverHeldJobs(id, tx);
    expect((await recorded(id, tx))[`${late.subscriberId}/paid`]).toEqual({ status: "ran", outcome: "timed_out" });
    expect((await deliveredMessages(key, tx, 2)).filter((m) => m.status !== "skipped").map((m) => m.stepId)).toEqual(["reminder"]);
    // The signal came first: the timeout has nothing left to fire.
    const early = person();
    const tx2 = await triggerHeld(id, key, { workflow, to: early });
    expect((await signal(key, tx2, { name: "invoice.paid" })).body).toMatchObject({ matched: 1 });
    expect(await releaseWaits(id, tx2, Date.now() + 2 * HOUR)).toBe(0);
    await deliverHeldJobs(id, tx2);
    expect((await recorded(id, tx2))[`${early.subscriberId}/paid`]).toMatchObject({ outcome: "matched" });
    expect((await deliveredMessages(key, tx2, 2)).filter((m) => m.status !== "skipped").map((m) => m.stepId)).toEqual(["thanks"]);
  });

  it("a cancel stops a wait: its recipients' remaining steps are recorded cancelled, and a signal wakes nothing", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    const tx = await triggerHeld(id, key, { workflow, to: person() });
    expect((await api(key, "DELETE", "/v1/trigger", { transactionId: tx })).status).toBe(200);
    expect(await unreleasedWaits(id, tx)).toBe(0);
    expect((await signal(key, tx, { name: "invoice.paid" })).body).toMatchObject({ matched: 0 });
    await deliverHeldJobs(id, tx);
    const messages = await deliveredMessages(key, tx, 2);
    expect(messages.map((m) => [m.stepId, m.status]).sort()).toEqual([
      ["reminder", "cancelled"],
      ["thanks", "cancelled"],
    ]);
  });
});

describe("wait steps: message statuses", () => {
  it("an Inbox notification marked seen through the API ends the wait for seen", async () => {
    const { id, key, workflow } = await setUp([
      bell("bell"),
      { id: "seen", type: "wait", until: { message: { step: "bell", status: "seen" } }, timeout: "PT1H" },
      mail("fallback", { if: { field: "steps.seen.outcome", op: "eq", value: "timed_out" } }),
    ]);
    const to = person();
    const tx = await triggerHeld(id, key, { workflow, to });
    const [inbox] = await deliveredMessages(key, tx, 1);
    expect(await unreleasedWaits(id, tx)).toBe(1);
    const res = await api(key, "PATCH", `/v1/subscribers/${to.subscriberId}/notifications/${inbox!.id}`, { seen: true });
    expect(res.status).toBe(200);
    expect(await unreleasedWaits(id, tx)).toBe(0);
    await deliverHeldJobs(id, tx);
    expect((await recorded(id, tx))[`${to.subscriberId}/seen`]).toMatchObject({
      status: "ran",
      outcome: "matched",
      detail: { message: { step: "bell", status: "seen" } },
    });
    expect((await deliveredMessages(key, tx, 2)).find((m) => m.stepId === "fallback")?.status).toBe("skipped");
  });

  it("a message that already reached the status (read, past seen) matches on arrival, with no wait", async () => {
    const { id, key, workflow } = await setUp([
      bell("bell"),
      { id: "pause", type: "delay", for: "PT5M" },
      { id: "seen", type: "wait", until: { message: { step: "bell", status: "seen" } }, timeout: "PT1H" },
      mail("fallback", { if: { field: "steps.seen.outcome", op: "eq", value: "timed_out" } }),
    ]);
    const to = person();
    const tx = await triggerHeld(id, key, { workflow, to });
    const [inbox] = await deliveredMessages(key, tx, 1);
    await api(key, "PATCH", `/v1/subscribers/${to.subscriberId}/notifications/${inbox!.id}`, { read: true });
    await deliverWaitsDue(id, tx, Date.now() + 10 * 60_000);
    expect((await recorded(id, tx))[`${to.subscriberId}/seen`]).toMatchObject({ outcome: "matched" });
    expect(await unreleasedWaits(id, tx)).toBe(0);
  });
});

describe("channel escalation recipe", () => {
  it("in-app, then email if not seen within 1 h, then SMS if the email is not opened within 1 day", async () => {
    const { id, key, workflow } = await setUp([
      bell("bell"),
      { id: "seen", type: "wait", until: { message: { step: "bell", status: "seen" } }, timeout: "PT1H" },
      mail("email", { if: { field: "steps.seen.outcome", op: "eq", value: "timed_out" } }),
      {
        id: "opened",
        type: "wait",
        if: { field: "steps.seen.outcome", op: "eq", value: "timed_out" },
        until: { message: { step: "email", status: "opened" } },
        timeout: "P1D",
      },
      text("sms", { if: { field: "steps.opened.outcome", op: "eq", value: "timed_out" } }),
    ]);
    const [sees, opens, ignores] = [person(), person(), person()];
    const tx = await triggerHeld(id, key, { workflow, to: [sees, opens, ignores] });
    const inApp = await deliveredMessages(key, tx, 3);
    const bellOf = (s: { subscriberId: string }) => inApp.find((m) => m.subscriberId === s.subscriberId)!.id;

    // One sees the in-app notification: their wait ends now, and they get nothing more.
    await api(key, "PATCH", `/v1/subscribers/${sees.subscriberId}/notifications/${bellOf(sees)}`, { seen: true });
    await deliverHeldJobs(id, tx);
    // An hour later the other two get the email, and wait a day for it to be opened.
    await deliverWaitsDue(id, tx, Date.now() + 2 * HOUR);
    // The one who saw it has all three recorded (two skipped); the others have the in-app and the email.
    const afterEmail = await deliveredMessages(key, tx, 7);
    const emailOf = afterEmail.find((m) => m.subscriberId === opens.subscriberId && m.stepId === "email")!;
    expect(emailOf.status).not.toBe("skipped");
    const pixel = await openPixelUrl(env, "", emailOf.id);
    expect((await fetchSettled(pixel)).status).toBe(200);
    await deliverHeldJobs(id, tx);
    // A day later the one who did neither gets the SMS.
    await deliverWaitsDue(id, tx, Date.now() + 2 * 86_400_000);

    const all = await deliveredMessages(key, tx, 9);
    const sent = (s: { subscriberId: string }) =>
      all
        .filter((m) => m.subscriberId === s.subscriberId && m.status !== "skipped")
        .map((m) => m.stepId)
        .sort();
    expect(sent(sees)).toEqual(["bell"]);
    expect(sent(opens)).toEqual(["bell", "email"]);
    expect(sent(ignores)).toEqual(["bell", "email", "sms"]);
    const outcomes = await recorded(id, tx);
    expect(outcomes[`${sees.subscriberId}/seen`]?.outcome).toBe("matched");
    expect(outcomes[`${sees.subscriberId}/opened`]).toEqual({ status: "skipped", reason: "condition" });
    expect(outcomes[`${opens.subscriberId}/opened`]?.outcome).toBe("matched");
    expect(outcomes[`${ignores.subscriberId}/opened`]?.outcome).toBe("timed_out");
    expect(await unreleasedWaits(id, tx)).toBe(0);
  });
});

describe("wait steps: limits and races inside the home", () => {
  it("a timeout longer than 30 days is refused at save, with the step's path", async () => {
    const { key } = await createSandboxEnvironment();
    const res = await api(
      key,
      "POST",
      "/v1/workflows",
      workflowBody({ key: unique("wl").toLowerCase(), steps: [{ ...WAIT_PAID, timeout: "P31D" }] }),
    );
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("timeout");
    const ok = await api(
      key,
      "POST",
      "/v1/workflows",
      workflowBody({ key: unique("wl").toLowerCase(), steps: [{ ...WAIT_PAID, timeout: "P30D" }] }),
    );
    expect(ok.status).toBe(201);
  });

  it("a signal that arrives between the wait's record and its park ends it when it parks", async () => {
    const { id, key, workflow } = await setUp([WAIT_PAID, ...AFTER]);
    const to = person();
    const tx = await triggerHeld(id, key, { workflow, to });
    // Take the parked row back out, as if the consumer had recorded `waiting` and not parked yet.
    const entry = await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) => {
      const row = state.storage.sql
        .exec<{ fire_at: number; job: string; hold: string }>("SELECT fire_at, job, hold FROM waits WHERE tx = ?", tx)
        .one();
      state.storage.sql.exec("DELETE FROM waits WHERE tx = ?", tx);
      return { fireAt: row.fire_at, job: JSON.parse(row.job), hold: JSON.parse(row.hold) } as WaitEntry;
    });
    expect((await signal(key, tx, { name: "invoice.paid" })).body).toMatchObject({ matched: 0 });
    const parked = await runInDurableObject(ledgerOf(id, tx), (ledger: TriggerLedger) =>
      ledger.run([{ kind: "park", environmentId: id, transactionId: tx, entries: [entry] }]),
    );
    expect(parked).toEqual([{ kind: "park", outcome: "waiting" }]);
    expect((await recorded(id, tx))[`${to.subscriberId}/paid`]).toMatchObject({ outcome: "matched" });
    // It parks due now, not at its timeout (the object's alarm, set for now, sends it on).
    const fireAts = await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) =>
      state.storage.sql.exec<{ at: number }>("SELECT fire_at AS at FROM waits WHERE tx = ?", tx).toArray(),
    );
    expect(fireAts).toHaveLength(1);
    expect(fireAts[0]!.at).toBeLessThanOrEqual(Date.now());
  });
});
