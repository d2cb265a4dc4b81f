import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { acceptThenCrash, deliverHeldJobs, outboxWrites, readTrigger } from "../ledger";
import { recordTriggers } from "../../src/delivery/writes/trigger-writes";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { createEnvironment, createEnvironmentWithWorkflow, createWorkflow, triggerRow, unique } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

interface CancelResult {
  transactionId: string;
  status: "cancelled" | "already_cancelled" | "completed";
  cancelledMessages: number;
  alreadySent: number;
}

/** An environment with one trigger whose job its ledger still holds: the consumer runs it when the test says (`deliverHeldJobs`). */
async function heldTrigger() {
  const environment = await createEnvironmentWithWorkflow();
  const { transactionId } = await acceptThenCrash(environment.id, environment.workflowKey, "user-1");
  return { ...environment, transactionId };
}

/** An environment with one accepted trigger. */
async function acceptedTrigger(workflow: Record<string, unknown> = {}) {
  const environment = await createEnvironmentWithWorkflow(workflow);
  const transactionId = unique("txn");
  const res = await api(environment.key, "POST", "/v1/trigger/", { workflow: environment.workflowKey, to: "user-1", transactionId });
  expect(res.status).toBe(202);
  return { ...environment, transactionId };
}

const cancelByBody = (key: string, transactionId: string, path = "/v1/trigger/") =>
  api<CancelResult>(key, "DELETE", path, { transactionId });

const cancelByQuery = (key: string, transactionId: string, path = "/v1/trigger/") =>
  api<CancelResult>(key, "DELETE", `${path}?transactionId=${encodeURIComponent(transactionId)}`);

describe("DELETE /v1/trigger/", () => {
  it.each(["/v1/trigger", "/v1/trigger/"])("cancels with the transactionId in a JSON body at %s", async (path) => {
    const { id, key, transactionId } = await acceptedTrigger();
    const res = await cancelByBody(key, transactionId, path);
    expect(res.status).toBe(200);
    // One recipient and one email step: one message that will now never be sent.
    expect(res.body).toEqual({ transactionId, status: "cancelled", cancelledMessages: 1, alreadySent: 0 });
    expect((await readTrigger(id, transactionId))?.state).toBe("cancelled");
  });

  it.each(["/v1/trigger", "/v1/trigger/"])("cancels with ?transactionId= at %s", async (path) => {
    const { id, key, transactionId } = await acceptedTrigger();
    const res = await cancelByQuery(key, transactionId, path);
    expect(res.status).toBe(200);
    // One recipient and one email step: one message that will now never be sent.
    expect(res.body).toEqual({ transactionId, status: "cancelled", cancelledMessages: 1, alreadySent: 0 });
    expect((await readTrigger(id, transactionId))?.state).toBe("cancelled");
  });

  it("shows the cancellation in GET /v1/trigger/{transactionId} as soon as it answers, and counts each message once when recorded", async () => {
    const { id, key, transactionId } = await heldTrigger();
    expect((await cancelByBody(key, transactionId)).body.cancelledMessages).toBe(1);
    const status = () => api<{ status: string; messages: unknown }>(key, "GET", `/v1/trigger/${transactionId}`);
    const cancelled = { status: "cancelled", messages: { total: 1, byStatus: { cancelled: 1 } } };
    expect((await status()).body).toMatchObject(cancelled);
    // The consumer then records the message itself: still one cancelled message, not two.
    await deliverHeldJobs(id, transactionId);
    const list = await api<{ data: { status: string }[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}`);
    expect(list.body.data.map((m) => m.status)).toEqual(["cancelled"]);
    expect((await status()).body).toMatchObject(cancelled);
  });

  it("counts a branched workflow's messages along its longest way, not every path's", async () => {
    const mail = (id: string) => ({ id, type: "email", template: { subject: "Hi", text: "Hi" } });
    const steps = [
      { id: "feed", type: "in_app", template: { body: "Hi" } },
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "vip",
            if: { field: "payload.vip", op: "eq", value: true },
            steps: [mail("vip-mail"), { id: "vip-text", type: "sms", template: { body: "Hi" } }],
          },
          { id: "plain", if: { field: "payload.vip", op: "eq", value: false }, steps: [mail("plain-mail")] },
        ],
        default: { steps: [] },
      },
    ];
    const { key, transactionId } = await acceptedTrigger({ steps });
    // One recipient: the in-app message and the VIP path's two; the other path's email never adds to them.
    expect((await cancelByBody(key, transactionId)).body).toMatchObject({ status: "cancelled", cancelledMessages: 3 });
  });

  it("answers already_cancelled to a second cancellation", async () => {
    const { key, transactionId } = await acceptedTrigger();
    expect((await cancelByBody(key, transactionId)).body.status).toBe("cancelled");
    const again = await cancelByQuery(key, transactionId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ transactionId, status: "already_cancelled", cancelledMessages: 0, alreadySent: 0 });
  });

  it("rejects an unknown transactionId with 404 transaction_not_found", async () => {
    const { key } = await createEnvironment();
    expectProblem(await cancelByBody(key, unique("txn")), 404, "transaction_not_found");
  });

  it("rejects an unknown transactionId given as a query parameter with 404 transaction_not_found", async () => {
    const { key } = await createEnvironment();
    expectProblem(await cancelByQuery(key, unique("txn")), 404, "transaction_not_found");
  });

  it.each([
    ["no body and no query", undefined],
    ["an empty object", {}],
    ["an empty transactionId", { transactionId: "" }],
    ["a numeric transactionId", { transactionId: 42 }],
  ])("rejects %s with 422 validation_failed", async (_label, body) => {
    const { key } = await createEnvironment();
    const problem = expectProblem(await api(key, "DELETE", "/v1/trigger/", body), 422, "validation_failed");
    expect(errorPaths(problem)).toContain("transactionId");
  });

  it("rejects malformed JSON with 400 malformed_json", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "DELETE", "/v1/trigger/", undefined, {
      rawBody: '{"transactionId": ',
      headers: { "content-type": "application/json" },
    });
    expectProblem(res, 400, "malformed_json");
  });

  it("leaves the record cancelled when the consumer recorded the trigger before the cancellation", async () => {
    const { id, key, transactionId } = await heldTrigger();
    const snapshot = (await readTrigger(id, transactionId))!;
    const { state: _state, ledger: _ledger, coordinated: _coordinated, ...record } = snapshot;
    // The consumer's first write for a trigger that is still running (what it does before any delivery).
    await recordTriggers(new LogStore(env), [{ record, status: "processing" }]);
    expect((await cancelByBody(key, transactionId)).body.status).toBe("cancelled");
    expect((await triggerRow(id, transactionId))?.status).toBe("cancelled");
    // The rest of that consumer's run, after the cancellation.
    await deliverHeldJobs(id, transactionId);
    expect((await triggerRow(id, transactionId))?.status).toBe("cancelled");
  });

  it("leaves the record cancelled when the consumer writes it after the cancellation", async () => {
    const { id, key, transactionId } = await heldTrigger();
    expect((await cancelByBody(key, transactionId)).body.status).toBe("cancelled");
    const written = await triggerRow(id, transactionId);
    expect(written?.status).toBe("cancelled");
    // The consumer's own write bumps updated_at; it must keep the status.
    await deliverHeldJobs(id, transactionId);
    const rewritten = await triggerRow(id, transactionId);
    expect(rewritten!.updated_at).toBeGreaterThan(written!.updated_at);
    expect(rewritten!.status).toBe("cancelled");
  });

  it("keeps the record cancelled when a consumer that read the trigger before the cancellation writes after it", async () => {
    const { id, key, transactionId } = await acceptedTrigger();
    const snapshot = (await readTrigger(id, transactionId))!;
    expect(snapshot.state).toBe("accepted");
    expect((await cancelByBody(key, transactionId)).body.status).toBe("cancelled");
    const { state: _state, ledger: _ledger, coordinated: _coordinated, ...record } = snapshot;
    // What a consumer holding the pre-cancellation snapshot writes.
    await recordTriggers(new LogStore(env), [{ record, status: "accepted" }], Date.now() + 1000);
    expect((await triggerRow(id, transactionId))?.status).toBe("cancelled");
  });

  it("does not let a cancelled trigger be replayed into delivery", async () => {
    const { id, key, workflowKey, transactionId } = await acceptedTrigger();
    expect((await cancelByBody(key, transactionId)).body.status).toBe("cancelled");
    const written = await outboxWrites(id, transactionId);
    const replay = await api(key, "POST", "/v1/trigger/", { workflow: workflowKey, to: "user-1", transactionId });
    expect(replay.status).toBe(202);
    // The 202 comes once the ledger has written what it will send: a replay into delivery would have written a job.
    expect(await outboxWrites(id, transactionId)).toBe(written);
    expect((await triggerRow(id, transactionId))?.status).toBe("cancelled");
    expect((await readTrigger(id, transactionId))?.state).toBe("cancelled");
  });

  it("does not cancel another environment's trigger", async () => {
    const { id, transactionId } = await acceptedTrigger();
    const other = await createEnvironment();
    expectProblem(await cancelByBody(other.key, transactionId), 404, "transaction_not_found");
    expectProblem(await cancelByQuery(other.key, transactionId), 404, "transaction_not_found");
    expect((await readTrigger(id, transactionId))?.state).not.toBe("cancelled");
  });

  it("cancels only the caller's trigger when two environments share a transactionId", async () => {
    const a = await acceptedTrigger();
    const b = await createEnvironment();
    await createWorkflow(b.key, { key: a.workflowKey });
    expect(
      (await api(b.key, "POST", "/v1/trigger/", { workflow: a.workflowKey, to: "user-1", transactionId: a.transactionId })).status,
    ).toBe(202);
    expect((await cancelByBody(b.key, a.transactionId)).body.status).toBe("cancelled");
    expect((await readTrigger(a.id, a.transactionId))?.state).not.toBe("cancelled");
    expect((await readTrigger(b.id, a.transactionId))?.state).toBe("cancelled");
  });
});
