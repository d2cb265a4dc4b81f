import { describe, expect, it } from "vitest";
import { readTrigger } from "../ledger";
import { createEnvironmentWithWorkflow, unique } from "../factories";
import { api } from "../request";
import { NOVU_NODE_AGENT, novu } from "./client";

describe("POST /v1/events/trigger", () => {
  it("answers 201 with Novu's trigger body, and stores Clarion's trigger", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    // Novu's tenant and context map onto Clarion's tenant (which must exist) and context.
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const res = await novu(key, "POST", "/v1/events/trigger", {
      name: workflowKey,
      to: [{ subscriberId: "ada", email: "ada@example.com", locale: "en_GB" }, "grace", { type: "Topic", topicKey: "nobody" }],
      payload: { orderId: "A-1" },
      overrides: {},
      transactionId,
      tenant: "acme",
      bridgeUrl: "https://bridge.example.com",
      controls: { steps: {} },
      context: { team: "a" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: { acknowledged: true, status: "processed", transactionId, error: [expect.stringContaining("Recipient 2")] },
    });
    const stored = await readTrigger(id, transactionId);
    expect(stored).toMatchObject({ payload: { orderId: "A-1" }, tenant: { id: "acme" }, context: { team: "a" } });
    expect(JSON.stringify(stored)).toContain("en-GB");
  });

  it("takes its transactionId from the idempotency-key when none is given, and replays the answer", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const headers = { "user-agent": "@novu/api", "idempotency-key": unique("idem") };
    const body = { name: workflowKey, to: "ada" };
    const first = await api<{ data: { transactionId: string } }>(key, "POST", "/novu/v1/events/trigger", body, { headers });
    const second = await api<{ data: { transactionId: string } }>(key, "POST", "/novu/v1/events/trigger", body, { headers });
    expect(first.status).toBe(201);
    expect(second.headers.get("idempotency-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });

  it("answers an unknown workflow with Novu's error body to a Novu SDK", async () => {
    const { key } = await createEnvironmentWithWorkflow();
    const res = await novu(key, "POST", "/v1/events/trigger", { name: "no-such-workflow", to: "ada" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      statusCode: 404,
      message: expect.any(String),
      error: "Workflow not found",
      code: "workflow_not_found",
      path: "/novu/v1/events/trigger",
      timestamp: expect.any(String),
    });
  });

  it("answers a missing key with Novu's 401 body to @novu/node", async () => {
    const res = await novu(null, "POST", "/v1/events/trigger", { name: "x", to: "ada" }, NOVU_NODE_AGENT);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, code: "unauthorized" });
  });

  it("answers any client in Novu's error body, whatever its User-Agent", async () => {
    const { key } = await createEnvironmentWithWorkflow();
    const res = await api(
      key,
      "POST",
      "/novu/v1/events/trigger",
      { name: "no-such-workflow", to: "ada" },
      { headers: { "user-agent": "curl/8.5.0" } },
    );
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, code: "workflow_not_found" } });
  });

  it("translates Novu's { type: 'Topic', topicKey } into Clarion's topic recipient", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    await api(key, "POST", "/v1/topics", { key: "release-notes", name: "Release notes" });
    const res = await novu<{ data: { transactionId: string } }>(key, "POST", "/v1/events/trigger", {
      name: workflowKey,
      to: [{ type: "Topic", topicKey: "release-notes", exclude: ["ada"] }],
    });
    expect(res.status).toBe(201);
    expect((await readTrigger(id, res.body.data.transactionId))?.recipients).toEqual([{ topic: "release-notes", exclude: ["ada"] }]);
  });

  it("answers an unknown topic in Novu's form with Novu's 404", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await novu(key, "POST", "/v1/events/trigger", { name: workflowKey, to: { type: "Topic", topicKey: "no-such-topic" } });
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, code: "topic_not_found" } });
  });

  it("maps a validation failure to Novu's per-field errors", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await novu(key, "POST", "/v1/events/trigger", { name: workflowKey, to: "ada", payload: "nope" });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, errors: { payload: { messages: [expect.any(String)] } } });
  });
});

describe("POST /v1/events/trigger/bulk", () => {
  it("answers 201 with one Novu answer per event, a bad one included", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await novu(key, "POST", "/v1/events/trigger/bulk", {
      events: [
        { name: workflowKey, to: "ada" },
        { name: "no-such-workflow", to: "ada" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: [
        { acknowledged: true, status: "processed", transactionId: expect.any(String) },
        { acknowledged: false, status: "error", error: [expect.stringContaining("no-such-workflow")] },
      ],
    });
  });
});

describe("POST /v1/events/trigger/broadcast", () => {
  it("answers 201 and stores a broadcast", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    const res = await novu(key, "POST", "/v1/events/trigger/broadcast", {
      name: workflowKey,
      payload: { n: 1 },
      transactionId,
      tenant: { identifier: "t", name: "T" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { acknowledged: true, status: "processed", transactionId } });
    expect(await readTrigger(id, transactionId)).toMatchObject({ recipients: [{ type: "Broadcast" }], tenant: { id: "t", name: "T" } });
  });
});

describe("DELETE /v1/events/trigger/{transactionId}", () => {
  it("answers true when it cancels a delayed trigger, then false", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow({
      steps: [
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "mail", type: "email", template: { subject: "Later", text: "Hi" } },
      ],
    });
    const transactionId = unique("txn");
    expect((await novu(key, "POST", "/v1/events/trigger", { name: workflowKey, to: "ada", transactionId })).status).toBe(201);
    const first = await novu(key, "DELETE", `/v1/events/trigger/${transactionId}`);
    expect(first).toMatchObject({ status: 200, body: { data: true } });
    expect((await novu(key, "DELETE", `/v1/events/trigger/${transactionId}`)).body).toEqual({ data: false });
  });

  it("answers false for an unknown transactionId", async () => {
    const { key } = await createEnvironmentWithWorkflow();
    expect(await novu(key, "DELETE", "/v1/events/trigger/nothing-here")).toMatchObject({ status: 200, body: { data: false } });
  });
});
