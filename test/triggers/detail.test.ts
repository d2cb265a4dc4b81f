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

  it("never shows a secret variable's value in the payload", async () => {
    const { id, key } = await createSandboxEnvironment();
    const wf = unique("wf").toLowerCase();
    await createWorkflow(key, { key: wf });
    const secret = `s3cr3t-${unique("v")}`;
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: secret, secret: true })).status).toBe(201);
    const transactionId = await trigger(key, { workflow: wf, to: unique("to"), payload: { token: secret } });
    const body = await detail(id, key, transactionId);
    expect(JSON.stringify(body)).not.toContain(secret);
  });
});
