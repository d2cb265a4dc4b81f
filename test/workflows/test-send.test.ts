import { describe, expect, it } from "vitest";
import type { TriggerAccepted } from "../../src/features/triggers/schemas";
import { createSandboxEnvironment, createWorkflow, postTrigger, unique } from "../factories";
import { deliveredMessages, postDelivered } from "../held-triggers";
import { api, expectProblem } from "../request";

const testSend = (key: string, workflow: string, body: unknown) =>
  api<TriggerAccepted>(key, "POST", `/v1/workflows/${workflow}/test`, body);

describe("POST /v1/workflows/{key}/test", () => {
  it("sends a draft (inactive) workflow, which POST /v1/trigger refuses", async () => {
    const { key } = await createSandboxEnvironment();
    const wf = await createWorkflow(key, { active: false });
    const to = { subscriberId: unique("tester"), email: "tester@example.com" };
    expectProblem(await postTrigger(key, { workflow: wf.key, to, payload: { orderId: "1" } }), 422, "workflow_inactive");

    const res = await postDelivered(key, `/v1/workflows/${wf.key}/test`, { to, payload: { orderId: "1" } });
    expect(res.status).toBe(202);
    const [message] = await deliveredMessages(key, res.body.transactionId, 1);
    expect(message).toMatchObject({ status: "sent", workflow: wf.key, subject: "Your order 1 shipped" });
  });

  it("answers 404 for an unknown workflow", async () => {
    const { key } = await createSandboxEnvironment();
    expectProblem(await testSend(key, "no-such-workflow", { to: "someone" }), 404, "workflow_not_found");
  });

  it("applies the workflow's payload schema like a trigger", async () => {
    const { key } = await createSandboxEnvironment();
    const wf = await createWorkflow(key, {
      active: false,
      payloadSchema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" } } },
    });
    const res = await testSend(key, wf.key, { to: unique("s"), payload: {} });
    expectProblem(res, 422, "validation_failed");
  });

  it("refuses a workflow or transactionId in the body", async () => {
    const { key } = await createSandboxEnvironment();
    const wf = await createWorkflow(key);
    expectProblem(await testSend(key, wf.key, { to: "x", workflow: "other" }), 422, "validation_failed");
    expectProblem(await testSend(key, wf.key, { to: "x", transactionId: "t-1" }), 422, "validation_failed");
  });
});
