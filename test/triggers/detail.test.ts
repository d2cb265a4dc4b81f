import { describe, expect, it } from "vitest";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { createSandboxEnvironment, createWorkflow, trigger, unique } from "../factories";
import { api, eventually } from "../request";

const detail = (key: string, transactionId: string) =>
  eventually(async () => {
    const res = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
    return res.status === 200 ? res.body : null;
  });

describe("GET /v1/trigger/{transactionId}", () => {
  it("shows the payload, the actor and the overrides the trigger was given", async () => {
    const { key } = await createSandboxEnvironment();
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
    const body = await detail(key, transactionId);
    expect(body).toMatchObject({ payload: { orderId: "A-1", items: [1, 2] }, actor, overrides });
  });

  it("answers null actor and overrides when none were given, and a bare actor id as given", async () => {
    const { key } = await createSandboxEnvironment();
    const wf = unique("wf").toLowerCase();
    await createWorkflow(key, { key: wf });
    const plain = await trigger(key, { workflow: wf, to: unique("to"), payload: {} });
    expect(await detail(key, plain)).toMatchObject({ payload: {}, actor: null, overrides: null });
    const byId = await trigger(key, { workflow: wf, to: unique("to"), payload: {}, actor: "boss" });
    expect((await detail(key, byId)).actor).toBe("boss");
  });

  it("never shows a secret variable's value in the payload", async () => {
    const { key } = await createSandboxEnvironment();
    const wf = unique("wf").toLowerCase();
    await createWorkflow(key, { key: wf });
    const secret = `s3cr3t-${unique("v")}`;
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: secret, secret: true })).status).toBe(201);
    const transactionId = await trigger(key, { workflow: wf, to: unique("to"), payload: { token: secret } });
    const body = await detail(key, transactionId);
    expect(JSON.stringify(body)).not.toContain(secret);
  });
});
