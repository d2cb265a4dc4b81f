import { describe, expect, it } from "vitest";
import { readTrigger, startTriggers } from "../ledger";
import { LIVE_TRIGGER_STATUSES, createEnvironment, createEnvironmentWithWorkflow, createWorkflow, triggerRow, unique } from "../factories";
import type { BulkTriggerResult } from "../../src/features/triggers/schemas";
import { api, errorPaths, expectProblem } from "../request";
import { loggedTriggers } from "../log";

type BulkResult = BulkTriggerResult["results"][number];

const bulk = (key: string, events: unknown[], path = "/v1/trigger/bulk/") => api<BulkTriggerResult>(key, "POST", path, { events });

const accepted = (result: BulkResult | undefined) => {
  if (result?.status !== "accepted") throw new Error(`expected an accepted result, got ${JSON.stringify(result)}`);
  return result;
};

describe("POST /v1/trigger/bulk/", () => {
  it.each(["/v1/trigger/bulk", "/v1/trigger/bulk/"])("answers 202 at %s", async (path) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await bulk(key, [{ workflow: workflowKey, to: "user-1" }], path);
    expect(res.status).toBe(202);
    expect(res.body.results).toEqual([{ status: "accepted", transactionId: expect.any(String) }]);
  });

  it("answers in request order", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const ids = Array.from({ length: 10 }, () => unique("txn"));
    const res = await bulk(
      key,
      ids.map((transactionId, i) => ({ workflow: workflowKey, to: `user-${i}`, transactionId })),
    );
    expect(res.status).toBe(202);
    expect(res.body.results.map((r) => accepted(r).transactionId)).toEqual(ids);
  });

  it("reports a validation error for one event without failing the others", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await bulk(key, [
      { workflow: workflowKey, to: "user-1" },
      { workflow: workflowKey, to: 42 },
      "not an event",
      { workflow: workflowKey, to: "user-3" },
    ]);
    expect(res.status).toBe(202);
    const [first, second, third, fourth] = res.body.results;
    accepted(first);
    expect(second).toEqual({ status: "error", index: 1, error: expect.objectContaining({ status: 422, code: "validation_failed" }) });
    expect(errorPaths(second?.status === "error" ? second.error : {})).toContain("to");
    expect(third).toEqual({ status: "error", index: 2, error: expect.objectContaining({ status: 422, code: "validation_failed" }) });
    accepted(fourth);
  });

  it("reports an unknown workflow for one event without failing the others", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await bulk(key, [
      { workflow: "no-such-workflow", to: "user-1" },
      { workflow: workflowKey, to: "user-2" },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.results[0]).toEqual({
      status: "error",
      index: 0,
      error: expect.objectContaining({ status: 404, code: "workflow_not_found" }),
    });
    accepted(res.body.results[1]);
  });

  it("reports other per-event problems (inactive workflow, schema, no recipients, payload size) in place", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const { key: inactive } = await createWorkflow(key, { active: false });
    const { key: strict } = await createWorkflow(key, {
      payloadSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
    });
    const res = await bulk(key, [
      { workflow: inactive, to: "user-1" },
      { workflow: strict, to: "user-1", payload: { orderId: 1 } },
      { workflow: workflowKey, to: [{ subscriberId: "x", email: "nope" }] },
      { workflow: workflowKey, to: "user-1", payload: { blob: "x".repeat(513 * 1024) } },
      { workflow: workflowKey, to: "user-1" },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.results.map((r) => (r.status === "error" ? r.error.code : r.status))).toEqual([
      "workflow_inactive",
      "validation_failed",
      "no_valid_recipients",
      "payload_too_large",
      "accepted",
    ]);
  });

  it("answers every event when 100 events name 100 different workflows", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const events = Array.from({ length: 100 }, (_, i) => ({ workflow: i === 0 ? workflowKey : `missing-${i}`, to: "user-1" }));
    const res = await bulk(key, events);
    expect(res.status).toBe(202);
    expect(res.body.results).toHaveLength(100);
    accepted(res.body.results[0]);
    expect(res.body.results.slice(1).every((r) => r.status === "error" && r.error.code === "workflow_not_found")).toBe(true);
  });

  it("reports a transaction conflict for one event without failing the others", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    expect((await api(key, "POST", "/v1/trigger/", { workflow: workflowKey, to: "user-1", transactionId })).status).toBe(202);
    const res = await bulk(key, [
      { workflow: workflowKey, to: "user-2" },
      { workflow: workflowKey, to: "someone-else", transactionId },
      { workflow: workflowKey, to: "user-3" },
    ]);
    expect(res.status).toBe(202);
    accepted(res.body.results[0]);
    expect(res.body.results[1]).toEqual({
      status: "error",
      index: 1,
      error: expect.objectContaining({ status: 409, code: "transaction_conflict" }),
    });
    accepted(res.body.results[2]);
  });

  it("accepts the first of two events sharing a transactionId and reports the second as a conflict", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    const res = await bulk(key, [
      { workflow: workflowKey, to: "user-1", transactionId, payload: { n: 1 } },
      { workflow: workflowKey, to: "user-1", transactionId, payload: { n: 2 } },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.results[0]).toEqual({ status: "accepted", transactionId });
    expect(res.body.results[1]).toEqual({ status: "error", index: 1, error: expect.objectContaining({ code: "transaction_conflict" }) });
    expect((await readTrigger(id, transactionId))?.payload).toEqual({ n: 1 });
  });

  it("replays an event whose transactionId was accepted with the same body", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const event = { workflow: workflowKey, to: "user-1", transactionId: unique("txn") };
    expect((await api(key, "POST", "/v1/trigger/", event)).status).toBe(202);
    const res = await bulk(key, [event]);
    expect(res.body.results).toEqual([{ status: "accepted", transactionId: event.transactionId }]);
  });

  it("reports an event whose only recipient is an unknown topic as a topic_not_found item, accepting the others", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    await api(key, "POST", "/v1/topics", { key: "known", name: "Known" });
    const res = await bulk(key, [
      { workflow: workflowKey, to: { topic: "no-such-topic" } },
      { workflow: workflowKey, to: { topic: "known" } },
      { workflow: workflowKey, to: ["user-1", { topic: "no-such-topic" }] },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.results[0]).toEqual({
      status: "error",
      index: 0,
      error: expect.objectContaining({ status: 404, code: "topic_not_found" }),
    });
    expect(res.body.results[1]).toEqual({ status: "accepted", transactionId: expect.any(String) });
    expect(accepted(res.body.results[2]).invalidRecipients).toEqual([expect.objectContaining({ index: 1, topic: "no-such-topic" })]);
  });

  it("reports invalid recipients of an accepted event", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await bulk(key, [{ workflow: workflowKey, to: ["user-1", { subscriberId: "user-2", phone: "123" }] }]);
    expect(accepted(res.body.results[0]).invalidRecipients).toEqual([expect.objectContaining({ index: 1, subscriberId: "user-2" })]);
  });

  it("accepts 100 events and records each one in D1", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const events = Array.from({ length: 100 }, (_, i) => ({ workflow: workflowKey, to: `user-${i}`, payload: { i } }));
    const res = await bulk(key, events);
    expect(res.status).toBe(202);
    expect(res.body.results).toHaveLength(100);
    const ids = res.body.results.map((r) => accepted(r).transactionId);
    expect(new Set(ids).size).toBe(100);
    const durable = await Promise.all(ids.map((t) => readTrigger(id, t)));
    expect(durable.map((d) => d?.payload)).toEqual(events.map((e) => e.payload));
    await startTriggers(id, ids);
    expect(new Set((await loggedTriggers(id)).map((r) => r.transactionId))).toEqual(new Set(ids));
  });

  it("records only the accepted events of a mixed request", async () => {
    const { id, key, workflowKey } = await createEnvironmentWithWorkflow();
    const good = unique("txn");
    const bad = unique("txn");
    const res = await bulk(key, [
      { workflow: workflowKey, to: "user-1", transactionId: good },
      { workflow: "no-such-workflow", to: "user-1", transactionId: bad },
    ]);
    expect(res.status).toBe(202);
    await startTriggers(id, [good]);
    const row = (await triggerRow(id, good))!;
    expect(row.workflow_key).toBe(workflowKey);
    expect(LIVE_TRIGGER_STATUSES).toContain(row.status);
    expect(await triggerRow(id, bad)).toBeNull();
    expect(await readTrigger(id, bad)).toBeNull();
  });

  it("rejects 101 events with 422 validation_failed", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const events = Array.from({ length: 101 }, (_, i) => ({ workflow: workflowKey, to: `user-${i}` }));
    const problem = expectProblem(await bulk(key, events), 422, "validation_failed");
    expect(errorPaths(problem)).toContain("events");
  });

  it.each([
    ["no events", { events: [] }],
    ["events is not an array", { events: { workflow: "wf" } }],
    ["events is missing", {}],
  ])("rejects a request with %s with 422 validation_failed", async (_label, body) => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "POST", "/v1/trigger/bulk/", body), 422, "validation_failed");
  });

  it("accepts a body over 1 MiB (the bulk limit is 8 MiB)", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const events = Array.from({ length: 4 }, () => ({ workflow: workflowKey, to: "user-1", payload: { blob: "x".repeat(400 * 1024) } }));
    const res = await bulk(key, events);
    expect(res.status).toBe(202);
    expect(res.body.results.every((r) => r.status === "accepted")).toBe(true);
  });

  it("rejects a body over 8 MiB with 413 payload_too_large", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const events = Array.from({ length: 17 }, () => ({ workflow: workflowKey, to: "user-1", payload: { blob: "x".repeat(510 * 1024) } }));
    expectProblem(await bulk(key, events), 413, "payload_too_large");
  });
});
