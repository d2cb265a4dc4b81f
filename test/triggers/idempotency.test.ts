import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { idempotencyKeys } from "../../src/db/schema";
import type { BulkTriggerResult, TriggerAccepted } from "../../src/features/triggers/schemas";
import { sha256Hex } from "../../src/lib/crypto";
import { readTrigger } from "../ledger";
import { createEnvironmentWithWorkflow, unique } from "../factories";
import { api, expectProblem } from "../request";

const db = createDb(env.DB);

const postWithKey = <T = TriggerAccepted>(apiKey: string, idempotencyKey: string, body: unknown, path = "/v1/trigger") =>
  api<T>(apiKey, "POST", path, body, { headers: { "idempotency-key": idempotencyKey } });

/** What a lost answer leaves behind: the ledger has the trigger, the key store has nothing. */
const forgetAnswer = (environmentId: string, idempotencyKey: string) =>
  db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, `env:${environmentId}`), eq(idempotencyKeys.key, idempotencyKey)));

const derived = async (idempotencyKey: string) => `idem:${(await sha256Hex(idempotencyKey)).slice(0, 32)}`;

describe("POST /v1/trigger with an Idempotency-Key", () => {
  it("derives the transactionId from the key when the trigger has none", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    const res = await postWithKey(key, idempotencyKey, { workflow: workflowKey, to: "s-1" });
    expect(res.status).toBe(202);
    expect(res.body.transactionId).toBe(await derived(idempotencyKey));
  });

  it("keeps a transactionId the caller gives", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const transactionId = unique("txn");
    const res = await postWithKey(key, unique("idem"), { workflow: workflowKey, to: "s-1", transactionId });
    expect(res.body.transactionId).toBe(transactionId);
  });

  it("replays the first answer to the same request: one trigger", async () => {
    const { key, id, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    const body = { workflow: workflowKey, to: "s-1", payload: { n: 1 } };
    const first = await postWithKey(key, idempotencyKey, body);
    const second = await postWithKey(key, idempotencyKey, body);
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotency-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await readTrigger(id, first.body.transactionId)).not.toBeNull();
  });

  it("falls back on the ledger's replay rule when the stored answer is gone", async () => {
    const { key, id, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    const body = { workflow: workflowKey, to: "s-1", payload: { n: 2 } };
    const first = await postWithKey(key, idempotencyKey, body);
    await forgetAnswer(id, idempotencyKey);
    const retry = await postWithKey(key, idempotencyKey, body);
    // The handler ran again (no replay header) and the ledger recognised the same trigger.
    expect({ status: retry.status, replay: retry.headers.get("idempotency-replay"), body: retry.body }).toEqual({
      status: 202,
      replay: null,
      body: first.body,
    });
  });

  it("falls back on the ledger's conflict rule for another body once the stored answer is gone", async () => {
    const { key, id, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    await postWithKey(key, idempotencyKey, { workflow: workflowKey, to: "s-1", payload: { n: 3 } });
    await forgetAnswer(id, idempotencyKey);
    expectProblem(
      await postWithKey(key, idempotencyKey, { workflow: workflowKey, to: "s-1", payload: { n: 4 } }),
      409,
      "transaction_conflict",
    );
  });
});

describe("POST /v1/trigger/bulk with an Idempotency-Key", () => {
  it("derives one transactionId per event from the key and the event's place", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    const events = [
      { workflow: workflowKey, to: "s-1" },
      { workflow: workflowKey, to: "s-2", transactionId: "mine" },
      { workflow: workflowKey, to: "s-3" },
    ];
    const res = await postWithKey<BulkTriggerResult>(key, idempotencyKey, { events }, "/v1/trigger/bulk");
    const base = await derived(idempotencyKey);
    expect(res.body.results.map((r) => ("transactionId" in r ? r.transactionId : r.status))).toEqual([`${base}:0`, "mine", `${base}:2`]);
  });

  it("replays the first answer to the same bulk request", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const idempotencyKey = unique("idem");
    const body = { events: [{ workflow: workflowKey, to: "s-1" }] };
    const first = await postWithKey<BulkTriggerResult>(key, idempotencyKey, body, "/v1/trigger/bulk");
    const second = await postWithKey<BulkTriggerResult>(key, idempotencyKey, body, "/v1/trigger/bulk");
    expect(second.headers.get("idempotency-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });
});
