import { describe, expect, it } from "vitest";
import { readTrigger } from "../ledger";
import { createEnvironment, createEnvironmentWithWorkflow, subscriberRow, unique } from "../factories";
import { api, expectProblem } from "../request";

describe("API key authentication", () => {
  it("rejects a key that does not exist with 401", async () => {
    await createEnvironment();
    expectProblem(await api("ck_nope_0000000000000000000000000000000", "GET", "/v1/workflows"), 401, "unauthorized");
  });

  it("rejects a key with one character changed with 401", async () => {
    const { key } = await createEnvironment();
    const tampered = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");
    expectProblem(await api(tampered, "GET", "/v1/workflows"), 401, "unauthorized");
  });

  it.each(["Basic abc", "ApiKey", "Token abc", ""])("rejects the Authorization header %j with 401", async (header) => {
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { authorization: header } });
    expectProblem(res, 401, "unauthorized");
  });

  it("accepts `Authorization: ApiKey <key>`", async () => {
    const { key } = await createEnvironment();
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { authorization: `ApiKey ${key}` } });
    expect(res.status).toBe(200);
  });

  it("accepts `Authorization: Bearer <key>`", async () => {
    const { key } = await createEnvironment();
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("accepts the scheme in any case", async () => {
    const { key } = await createEnvironment();
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { authorization: `bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("leaves /health open", async () => {
    expect((await api(null, "GET", "/health")).status).toBe(200);
  });
});

describe("environment isolation", () => {
  it("does not let env B update or delete env A's workflow", async () => {
    const a = await createEnvironmentWithWorkflow();
    const b = await createEnvironment();
    const body = { key: a.workflowKey, name: "Hijacked", steps: [] };
    expectProblem(await api(b.key, "PUT", `/v1/workflows/${a.workflowKey}`, body), 404, "workflow_not_found");
    expectProblem(await api(b.key, "DELETE", `/v1/workflows/${a.workflowKey}`), 404, "workflow_not_found");
    const still = await api<{ name: string }>(a.key, "GET", `/v1/workflows/${a.workflowKey}`);
    expect(still.status).toBe(200);
    expect(still.body.name).not.toBe("Hijacked");
  });

  it("lets env B create a workflow with the key env A uses", async () => {
    const a = await createEnvironmentWithWorkflow();
    const b = await createEnvironment();
    const res = await api(b.key, "POST", "/v1/workflows", { key: a.workflowKey, name: "B's own", steps: [] });
    expect(res.status).toBe(201);
  });

  it("does not let env B trigger env A's workflow", async () => {
    const a = await createEnvironmentWithWorkflow();
    const b = await createEnvironment();
    const transactionId = unique("txn");
    expectProblem(
      await api(b.key, "POST", "/v1/trigger/", { workflow: a.workflowKey, to: "user-1", transactionId }),
      404,
      "workflow_not_found",
    );
    expect(await readTrigger(b.id, transactionId)).toBeNull();
    expect(await readTrigger(a.id, transactionId)).toBeNull();
  });

  it("does not let env B cancel env A's transaction", async () => {
    const a = await createEnvironmentWithWorkflow();
    const b = await createEnvironment();
    const transactionId = unique("txn");
    expect((await api(a.key, "POST", "/v1/trigger/", { workflow: a.workflowKey, to: "user-1", transactionId })).status).toBe(202);
    expectProblem(await api(b.key, "DELETE", "/v1/trigger/", { transactionId }), 404, "transaction_not_found");
    expect((await readTrigger(a.id, transactionId))?.state).not.toBe("cancelled");
  });

  it("keeps env A's subscriber separate from env B's subscriber of the same id", async () => {
    const a = await createEnvironment();
    const b = await createEnvironment();
    const subscriberId = unique("sub");
    expect((await api(a.key, "POST", "/sub", { subscriberId, email: "a@example.com" })).status).toBe(201);
    const inB = await api<{ email: string | null }>(b.key, "POST", "/sub", { subscriberId });
    expect(inB.status).toBe(201);
    expect(inB.body.email).toBeNull();
    expect(await subscriberRow(a.id, subscriberId)).toMatchObject({ email: "a@example.com" });
  });
});

describe("unknown routes", () => {
  it("answers an unknown API route with a 404 not_found problem", async () => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "GET", "/v1/nothing-here"), 404, "not_found");
  });

  it("answers an unknown path under the public /v1/webhooks/ with 404, not 401", async () => {
    expectProblem(await api(null, "POST", "/v1/webhooks/resend", {}), 404, "not_found");
  });

  it("answers an unknown route outside the API with a 404 not_found problem", async () => {
    expectProblem(await api(null, "GET", "/nothing-here"), 404, "not_found");
  });
});
