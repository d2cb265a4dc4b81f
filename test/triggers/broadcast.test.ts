import { describe, expect, it } from "vitest";
import { readTrigger } from "../ledger";
import { createEnvironment, createEnvironmentWithWorkflow, createWorkflow, postTrigger, unique } from "../factories";
import { errorPaths, expectProblem } from "../request";

const broadcast = (key: string, body: unknown, path = "/v1/trigger/broadcast") => postTrigger(key, body, path);

describe("POST /v1/trigger/broadcast", () => {
  it.each(["/v1/trigger/broadcast", "/v1/trigger/broadcast/"])("answers 202 with the trigger's accepted body at %s", async (path) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await broadcast(key, { workflow: workflowKey, payload: { orderId: "o-1" } }, path);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ acknowledged: true, status: "accepted", transactionId: expect.any(String) });
  });

  it("stores one broadcast recipient with the payload, overrides and actor as given", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    const body = { workflow: workflowKey, payload: { v: 2 }, overrides: { email: { subject: "Hi" } }, actor: "ceo", transactionId };
    expect((await broadcast(key, body)).status).toBe(202);
    expect(await readTrigger(id, transactionId)).toMatchObject({
      state: "accepted",
      recipients: [{ type: "Broadcast" }],
      payload: { v: 2 },
      overrides: { email: { subject: "Hi" } },
      actor: "ceo",
    });
  });

  it("answers a replay of the same body with the same 202", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const body = { workflow: workflowKey, payload: { n: 1 }, transactionId: unique("txn") };
    const first = await broadcast(key, body);
    const second = await broadcast(key, body);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
  });

  it("rejects the transactionId of a broadcast with another payload with 409 transaction_conflict", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    expect((await broadcast(key, { workflow: workflowKey, payload: { n: 1 }, transactionId })).status).toBe(202);
    expectProblem(await broadcast(key, { workflow: workflowKey, payload: { n: 2 }, transactionId }), 409, "transaction_conflict");
  });

  it("rejects the transactionId of a broadcast reused by a trigger to one subscriber with 409", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    expect((await broadcast(key, { workflow: workflowKey, transactionId })).status).toBe(202);
    expectProblem(await postTrigger(key, { workflow: workflowKey, to: "user-1", transactionId }), 409, "transaction_conflict");
  });

  it("rejects an unknown workflow with 404 workflow_not_found", async () => {
    const { key } = await createEnvironment();
    expectProblem(await broadcast(key, { workflow: "no-such-workflow" }), 404, "workflow_not_found");
  });

  it("rejects an inactive workflow with 422 workflow_inactive", async () => {
    const { key } = await createEnvironment();
    const { key: workflowKey } = await createWorkflow(key, { active: false });
    expectProblem(await broadcast(key, { workflow: workflowKey }), 422, "workflow_inactive");
  });

  it.each([
    ["no workflow", {}, "workflow"],
    ["a `to`, which a broadcast does not take", { workflow: "w", to: "user-1" }, "(root)"],
    ["a payload that is not an object", { workflow: "w", payload: "text" }, "payload"],
    ["an invalid transactionId", { workflow: "w", transactionId: "has spaces" }, "transactionId"],
    ["an actor without subscriberId", { workflow: "w", actor: { email: "a@example.com" } }, "actor"],
  ])("rejects %s with 422 validation_failed", async (_name, body, path) => {
    const { key } = await createEnvironment();
    const res = await broadcast(key, body);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain(path);
  });
});
