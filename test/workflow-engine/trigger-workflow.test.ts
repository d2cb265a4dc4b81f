// trigger_workflow steps end to end: the child is accepted through the path of POST /v1/trigger
// (held in its ledger's outbox like any accept, then delivered here), for the current recipient
// only, under a transactionId derived from the parent's; a re-run replays it, a chain stops at
// five workflows, and a refusal fails the step while the parent's run goes on.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { childTransactionId } from "../../src/delivery/control/trigger-workflow";
import { api } from "../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { deliveredMessages, holdingLedgers, postHeld } from "../held-triggers";
import { deliverHeldJobs, ledgerOf } from "../ledger";

const mail = (id: string, subject = id) => ({ id, type: "email", template: { subject, text: `Hello from ${id}` } });
const person = (firstName = "Ada") => ({ subscriberId: unique("s"), email: "b@example.com", firstName });
const start = (workflow: string, payload?: Record<string, unknown>) => ({
  id: "start",
  type: "trigger_workflow",
  workflow,
  ...(payload ? { payload } : {}),
});

async function setUp() {
  const env = await createSandboxEnvironment();
  const workflow = async (steps: unknown[], options: Record<string, unknown> = {}) => {
    const key = unique("tw").toLowerCase();
    await createWorkflow(env.key, { key, steps, ...options });
    return key;
  };
  return { ...env, workflow };
}

/** Delivers a held trigger with every ledger held: what its steps accept stays in the outbox. Answers those transactionIds. */
async function deliverHolding(environmentId: string, transactionId: string): Promise<string[]> {
  const accepted: { environmentId: string; transactionId: string }[] = [];
  await deliverHeldJobs(environmentId, transactionId, holdingLedgers(accepted));
  return accepted.map((a) => a.transactionId);
}

/** Triggers through POST /v1/trigger and delivers it, holding what it starts; answers its transactionId and its children's. */
async function triggerHolding(key: string, body: Record<string, unknown>) {
  const { res, accepted } = await postHeld(key, "/v1/trigger", body);
  expect(res.status).toBe(202);
  const [{ environmentId, transactionId }] = accepted as [{ environmentId: string; transactionId: string }];
  return { transactionId, children: await deliverHolding(environmentId, transactionId) };
}

const recorded = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) =>
    state.storage.sql
      .exec<{ s: string; step: string; outcome: string }>(
        "SELECT subscriber_id AS s, step_id AS step, outcome FROM run_steps WHERE tx = ? ORDER BY subscriber_id",
        transactionId,
      )
      .toArray()
      .map((r) => ({ subscriberId: r.s, stepId: r.step, outcome: JSON.parse(r.outcome) as Record<string, unknown> })),
  );

/** The parent's job, put back in its outbox: what the Queue redelivering it (or a re-run after a crash) does. */
const requeue = (environmentId: string, transactionId: string, job: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) => {
    state.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", transactionId, job);
  });

const heldJob = (environmentId: string, transactionId: string) =>
  runInDurableObject(
    ledgerOf(environmentId, transactionId),
    (_l: TriggerLedger, state) =>
      state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ? ORDER BY id LIMIT 1", transactionId).one().job,
  );

const status = async (key: string, transactionId: string) =>
  (await api<TriggerStatusView>(key, "GET", `/v1/trigger/${encodeURIComponent(transactionId)}`)).body;

describe("trigger_workflow steps", () => {
  it("starts the workflow once per recipient, for that recipient only, with the payload rendered for them", async () => {
    const { id, key, workflow } = await setUp();
    const child = await workflow([mail("child-mail", "{{ payload.greeting }} / {{ payload.order.plan }} / {{ payload.count }}")]);
    const parent = await workflow([
      start(child, { greeting: "Hi {{ subscriber.firstName }}", order: { plan: "{{ payload.plan | upcase }}" }, count: 3 }),
      mail("after"),
    ]);
    const [ada, bob] = [person("Ada"), person("Bob")];
    const { transactionId: tx, children } = await triggerHolding(key, { workflow: parent, to: [ada, bob], payload: { plan: "pro" } });

    const derived = [`${tx}:start:${ada.subscriberId}`, `${tx}:start:${bob.subscriberId}`];
    expect(children.sort()).toEqual([...derived].sort());
    expect(await recorded(id, tx)).toEqual(
      [ada, bob]
        .map((p, i) => ({
          subscriberId: p.subscriberId,
          stepId: "start",
          outcome: { status: "ran", detail: { transactionId: derived[i], workflow: child } },
        }))
        .sort((a, b) => a.subscriberId.localeCompare(b.subscriberId)),
    );
    // The parent's run went on.
    expect((await deliveredMessages(key, tx, 2)).map((m) => m.stepId).sort()).toEqual(["after", "after"]);

    for (const [i, p] of [ada, bob].entries()) {
      expect(await deliverHolding(id, derived[i]!)).toEqual([]);
      const [message] = await deliveredMessages(key, derived[i]!, 1);
      expect(message!.subscriberId).toBe(p.subscriberId);
      expect(message!.subject).toBe(`Hi ${p.firstName} / PRO / 3`);
      const view = await status(key, derived[i]!);
      expect(view).toMatchObject({ workflow: child, parentTransactionId: tx, payload: { greeting: `Hi ${p.firstName}` } });
    }
    expect((await status(key, tx)).parentTransactionId).toBeNull();
  });

  it("carries the parent's tenant and actor to the child", async () => {
    const { id, key, workflow } = await setUp();
    const tenant = unique("acme");
    expect((await api(key, "POST", "/v1/tenants", { id: tenant, name: "Acme" })).status).toBe(201);
    const child = await workflow([mail("child-mail", "{{ actor.subscriberId }} for {{ tenant.name }}")]);
    const parent = await workflow([start(child)]);
    const { children } = await triggerHolding(key, { workflow: parent, to: person(), tenant, actor: "boss-1" });
    expect(children).toHaveLength(1);
    await deliverHolding(id, children[0]!);
    const [message] = await deliveredMessages(key, children[0]!, 1);
    expect(message!.subject).toBe("boss-1 for Acme");
    expect(await status(key, children[0]!)).toMatchObject({ tenant, actor: "boss-1" });
  });

  it("never starts a child twice: a redelivered job keeps the recorded outcome, a re-run that lost it replays the accept", async () => {
    const { id, key, workflow } = await setUp();
    const child = await workflow([mail("child-mail")]);
    const parent = await workflow([start(child, { n: "{{ payload.n }}" }), { id: "later", type: "delay", for: "PT1H" }, mail("after")]);
    const { res, accepted } = await postHeld(key, "/v1/trigger", { workflow: parent, to: person(), payload: { n: 1 } });
    expect(res.status).toBe(202);
    const tx = accepted[0]!.transactionId;
    const job = await heldJob(id, tx);
    const children = await deliverHolding(id, tx);
    expect(children).toHaveLength(1);
    const before = await recorded(id, tx);

    await requeue(id, tx, job);
    expect(await deliverHolding(id, tx)).toEqual([]);
    // What a crash between the accept and the record leaves: the child accepted, no outcome.
    await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) => {
      state.storage.sql.exec("DELETE FROM run_steps WHERE tx = ?", tx);
    });
    await requeue(id, tx, job);
    expect(await deliverHolding(id, tx)).toEqual([]);
    expect(await recorded(id, tx)).toEqual(before);

    await deliverHolding(id, children[0]!);
    await deliveredMessages(key, children[0]!, 1);
  });

  it("refuses the sixth workflow of a chain with trigger_depth_exceeded on the fifth's run, which goes on", async () => {
    const { id, key, workflow } = await setUp();
    const f = await workflow([mail("f-mail")]);
    let next = f;
    const keys = [f];
    for (const name of ["e", "d", "c", "b", "a"]) {
      next = await workflow([start(next), mail(`${name}-mail`)]);
      keys.unshift(next);
    }
    const chain: string[] = [];
    let { transactionId: tx, children } = await triggerHolding(key, { workflow: keys[0], to: person() });
    chain.push(tx);
    while (children.length) {
      expect(children).toHaveLength(1);
      tx = children[0]!;
      chain.push(tx);
      children = await deliverHolding(id, tx);
    }
    // a, b, c, d and e ran; e's step did not start f.
    expect(chain).toHaveLength(5);
    const views = await Promise.all(chain.map((t) => status(key, t)));
    expect(views.map((v) => v.workflow)).toEqual(keys.slice(0, 5));
    expect(views.map((v) => v.parentTransactionId)).toEqual([null, ...chain.slice(0, 4)]);
    const [last] = await recorded(id, chain[4]!);
    expect(last!.outcome).toMatchObject({ status: "failed", reason: "trigger_depth_exceeded", detail: { workflow: f, depth: 5 } });
    expect((last!.outcome.detail as { message: string }).message).toContain("at most 5 workflows");
    expect((await deliveredMessages(key, chain[4]!, 1)).map((m) => m.stepId)).toEqual(["e-mail"]);
  });

  it.each([
    ["an unknown workflow", "workflow_not_found", false],
    ["an inactive workflow", "workflow_inactive", true],
  ])("fails the step for %s (%s) and the run goes on", async (_name, reason, exists) => {
    const { id, key, workflow } = await setUp();
    const target = exists ? await workflow([mail("never")], { active: false }) : unique("missing").toLowerCase();
    const parent = await workflow([start(target), mail("after")]);
    const { transactionId: tx, children } = await triggerHolding(key, { workflow: parent, to: person() });
    expect(children).toEqual([]);
    const [row] = await recorded(id, tx);
    expect(row!.outcome).toMatchObject({ status: "failed", reason, detail: { workflow: target } });
    expect(typeof (row!.outcome.detail as { message?: unknown }).message).toBe("string");
    expect((await deliveredMessages(key, tx, 1)).map((m) => m.stepId)).toEqual(["after"]);
  });
});

describe("trigger_workflow refusals in words", () => {
  it("fails the step with validation_failed, naming the field, when the rendered payload breaks the child's payloadSchema", async () => {
    const { id, key, workflow } = await setUp();
    const payloadSchema = { type: "object", required: ["plan"], properties: { plan: { type: "string" } } };
    const child = await workflow([mail("never")], { payloadSchema });
    const parent = await workflow([start(child, { other: "{{ payload.plan }}" }), mail("after")]);
    const { transactionId: tx, children } = await triggerHolding(key, { workflow: parent, to: person(), payload: { plan: "pro" } });
    expect(children).toEqual([]);
    const [row] = await recorded(id, tx);
    expect(row!.outcome).toMatchObject({ status: "failed", reason: "validation_failed", detail: { workflow: child } });
    expect((row!.outcome.detail as { message: string }).message).toContain("plan");
    expect((await deliveredMessages(key, tx, 1)).map((m) => m.stepId)).toEqual(["after"]);
  });
});

describe("childTransactionId", () => {
  it("is <parent>:<stepId>:<subscriberId> when that is a valid transactionId", async () => {
    expect(await childTransactionId("tx-1", "start", "user-7")).toBe("tx-1:start:user-7");
  });

  it("hashes the subscriberId when it has other characters or the id would pass 128, and everything when even that does not fit", async () => {
    const mailLike = await childTransactionId("tx-1", "start", "ada@example.com");
    expect(mailLike).toMatch(/^tx-1:start:sha256\.[0-9a-f]{24}$/);
    expect(await childTransactionId("tx-1", "start", "ada@example.com")).toBe(mailLike);
    expect(await childTransactionId("tx-1", "start", "bob@example.com")).not.toBe(mailLike);
    const long = await childTransactionId("t".repeat(128), "s".repeat(64), "user-7");
    expect(long).toMatch(/^sha256\.[0-9a-f]{48}$/);
    expect(await childTransactionId("t".repeat(128), "s".repeat(64), "user-8")).not.toBe(long);
  });
});
