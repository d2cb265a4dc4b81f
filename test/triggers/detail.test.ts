import { describe, expect, it } from "vitest";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { createSandboxEnvironment, createWorkflow, trigger, unique } from "../factories";
import { startTriggers } from "../ledger";
import { api } from "../request";

/** The trigger's detail once the Queue consumer has recorded it (run here, not waited for). */
async function detail(environmentId: string, key: string, transactionId: string) {
  await startTriggers(environmentId, [transactionId]);
  const res = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** An environment with a workflow and a secret variable `TOKEN`, whose value a payload may carry. */
async function withSecretVariable() {
  const { id, key } = await createSandboxEnvironment();
  const wf = unique("wf").toLowerCase();
  await createWorkflow(key, { key: wf });
  const secret = `s3cr3t-${unique("v")}`;
  expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: secret, secret: true })).status).toBe(201);
  return { id, key, wf, secret };
}

describe("GET /v1/trigger/{transactionId}", () => {
  it("shows the payload, the actor and the overrides the trigger was given", async () => {
    const { id, key } = await createSandboxEnvironment();
    const wf = unique("wf").toLowerCase();
    await createWorkflow(key, { key: wf });
    const actor = { subscriberId: unique("actor"), firstName: "Grace" };
    const overrides = { email: { subject: "Overridden" } };
    const transactionId = await trigger(key, {
      workflow: wf,
      to: unique("to"),
      payload: { orderId: "A-1", items: [1, 2] },
      actor,
      overrides,
    });
    const body = await detail(id, key, transactionId);
    expect(body).toMatchObject({ payload: { orderId: "A-1", items: [1, 2] }, actor, overrides });
  });

  it("answers null actor and overrides when none were given, and a bare actor id as given", async () => {
    const { id, key } = await createSandboxEnvironment();
    const wf = unique("wf").toLowerCase();
    await createWorkflow(key, { key: wf });
    const plain = await trigger(key, { workflow: wf, to: unique("to"), payload: {} });
    expect(await detail(id, key, plain)).toMatchObject({ payload: {}, actor: null, overrides: null });
    const byId = await trigger(key, { workflow: wf, to: unique("to"), payload: {}, actor: "boss" });
    expect((await detail(id, key, byId)).actor).toBe("boss");
  });

  it("finds a trigger the consumer has not started yet, as accepted with no messages, and as recorded once it has", async () => {
    const { id, key, wf, secret } = await withSecretVariable();
    const actor = { subscriberId: unique("actor"), firstName: "Grace" };
    const transactionId = await trigger(key, {
      workflow: wf,
      to: unique("to"),
      payload: { orderId: "A-2", token: secret },
      actor,
      overrides: { email: { subject: "Overridden" } },
      tenant: { id: "acme", name: "Acme" },
      context: { region: "eu" },
    });
    // Nothing has run the Queue: only the ledger holds the trigger.
    const early = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({
      transactionId,
      workflow: wf,
      status: "accepted",
      payload: { orderId: "A-2", token: "[secret]" },
      actor,
      overrides: { email: { subject: "Overridden" } },
      tenant: "acme",
      context: { region: "eu" },
      parentTransactionId: null,
      messages: { total: 0, byStatus: {} },
    });
    expect(JSON.stringify(early.body)).not.toContain(secret);
    expect(Date.parse(early.body.acceptedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Another environment's key finds nothing, and an unknown transactionId is still 404.
    const other = await createSandboxEnvironment();
    expect((await api(other.key, "GET", `/v1/trigger/${transactionId}`)).status).toBe(404);
    expect((await api(key, "GET", `/v1/trigger/${unique("nope")}`)).status).toBe(404);
    // Recorded by the consumer: the log's record answers, with the same request.
    const recorded = await detail(id, key, transactionId);
    expect(recorded.status).not.toBe("accepted");
    expect(recorded).toMatchObject({ transactionId, acceptedAt: early.body.acceptedAt, payload: early.body.payload, tenant: "acme" });
  });

  it("never shows a secret variable's value in the payload", async () => {
    const { id, key, wf, secret } = await withSecretVariable();
    const transactionId = await trigger(key, { workflow: wf, to: unique("to"), payload: { token: secret } });
    const body = await detail(id, key, transactionId);
    expect(JSON.stringify(body)).not.toContain(secret);
  });
});
