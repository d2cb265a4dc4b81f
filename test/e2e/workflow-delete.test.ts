import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { workflowsRepository } from "../../src/features/workflows/repository";
import { ledgerOf, tickLedger } from "../ledger";
import { api, expectProblem } from "../request";
import { createSandboxEnvironment, postTrigger, unique } from "../factories";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, type MessageView, eventually } from "./helpers";
import { LogStore } from "../../src/durable-objects/client/log-store";

const waits = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}&limit=200`)).body.data;

const statusOf = async (key: string, transactionId: string) =>
  (await api<{ status: string; messages: { total: number } }>(key, "GET", `/v1/trigger/${transactionId}`)).body;

const person = () => ({ subscriberId: unique("p"), email: "p@example.com", phone: "+41791234567" });

const remind = (body: string, delay?: string) => ({
  key: "remind",
  steps: [
    { id: "mail", type: "email", template: { subject: "Welcome", text: "Hello" } },
    ...(delay ? [{ id: "wait", type: "delay", for: delay }] : []),
    { id: "text", type: "sms", template: { body } },
  ],
});

describe("DELETE /v1/workflows/{key} with triggers in flight", () => {
  it("lets a trigger waiting on a delay finish with the steps it was accepted for", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, remind("Old reminder", "PT1H"));
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    expect((await api(key, "DELETE", "/v1/workflows/remind")).status).toBe(204);
    // The key is free at once; the new workflow is not what the waiting trigger runs.
    await createWorkflow(key, remind("New reminder"));
    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));

    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "mail").status).toBe("sent");
    const text = byStep(messages, "text");
    expect(text.status).toBe("sent");
    expect((await messageDetail(key, text.id)).content).toMatchObject({ body: "Old reminder" });
    await eventually(async () => (await statusOf(key, transactionId)).status === "completed");
    expect((await statusOf(key, transactionId)).messages.total).toBe(2);
  });

  it("runs every step of a trigger accepted just before the delete", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, remind("Reminder"));
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    expect((await api(key, "DELETE", "/v1/workflows/remind")).status).toBe(204);

    const messages = await settledMessages(key, transactionId, 2);
    expect(messages.map((m) => [m.stepId, m.status]).sort()).toEqual([
      ["mail", "sent"],
      ["text", "sent"],
    ]);
    await eventually(async () => (await statusOf(key, transactionId)).status === "completed");
    expect((await statusOf(key, transactionId)).messages.total).toBe(2);
  });

  it("fails, rather than completes, a trigger whose workflow row is gone altogether", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key, remind("Reminder", "PT1H"));
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    await eventually(async () => (await waits(id, transactionId)).length === 1);
    // What a purge run too early would leave: no row at all, not even a tombstone.
    await env.DB.prepare("DELETE FROM workflows WHERE id = ?").bind(workflow.id).run();

    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));
    await eventually(async () => (await statusOf(key, transactionId)).status === "failed");
    expect((await messagesOf(key, transactionId)).map((m) => [m.stepId, m.status])).toEqual([["mail", "sent"]]);
  });

  it("hides the deleted workflow from get, list, preview and trigger", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, remind("Reminder"));
    expect((await api(key, "DELETE", "/v1/workflows/remind")).status).toBe(204);

    expectProblem(await api(key, "GET", "/v1/workflows/remind"), 404, "workflow_not_found");
    expect((await api<{ data: unknown[] }>(key, "GET", "/v1/workflows")).body.data).toEqual([]);
    expectProblem(await api(key, "POST", "/v1/workflows/remind/preview", {}), 404, "workflow_not_found");
    expectProblem(await api(key, "PUT", "/v1/workflows/remind", { ...remind("x"), name: "Remind" }), 404, "workflow_not_found");
    expectProblem(await postTrigger(key, { workflow: "remind", to: person() }), 404, "workflow_not_found");
    expectProblem(await api(key, "DELETE", "/v1/workflows/remind"), 404, "workflow_not_found");
  });

  it("purges a tombstone only once no unfinished trigger accepted before the delete needs it", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, remind("Reminder", "PT1H"));
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    await eventually(async () => (await waits(id, transactionId)).length === 1);
    await eventually(async () => (await statusOf(key, transactionId)).status === "processing");
    expect((await api(key, "DELETE", "/v1/workflows/remind")).status).toBe(204);
    const repo = workflowsRepository(createDb(env.DB), id, new LogStore(env));
    const later = new Date(Date.now() + 60_000);

    expect(await repo.purgeDeletedWorkflows(later)).toBe(0);
    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));
    await settledMessages(key, transactionId, 2);
    await eventually(async () => (await statusOf(key, transactionId)).status === "completed");
    expect(await repo.purgeDeletedWorkflows(new Date(Date.now() - 60_000))).toBe(0);
    expect(await repo.purgeDeletedWorkflows(later)).toBe(1);
    expect(await messagesOf(key, transactionId)).toHaveLength(2);
  });
});
