import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { ledgerOf, tickLedger } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, eventually } from "./helpers";

const waits = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const person = () => ({ subscriberId: unique("p"), email: "p@example.com", phone: "+41791234567" });

const remind = (body: string) => ({
  key: "remind",
  name: "Remind",
  steps: [
    { id: "mail", type: "email", template: { subject: "Welcome", text: "Hello" } },
    { id: "wait", type: "delay", for: "PT10S" },
    { id: "text", type: "sms", template: { body } },
  ],
});

describe("a run keeps the workflow version it started with", () => {
  it("sends the content of its version after a delay, though the workflow was edited meanwhile", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, remind("Old reminder"));
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    expect((await api(key, "PUT", "/v1/workflows/remind", remind("New reminder"))).status).toBe(200);
    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));

    const text = byStep(await settledMessages(key, transactionId, 2), "text");
    expect(text.status).toBe("sent");
    expect((await messageDetail(key, text.id)).content).toMatchObject({ body: "Old reminder" });

    // A trigger after the edit runs the new version.
    const later = await trigger(key, { workflow: "remind", to: person() });
    await eventually(async () => (await waits(id, later)).length === 1);
    await tickLedger(id, later, Math.max(...(await waits(id, later))));
    const next = byStep(await settledMessages(key, later, 2), "text");
    expect((await messageDetail(key, next.id)).content).toMatchObject({ body: "New reminder" });
  });

  it("a revert restores what a trigger renders", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { ...remind("First"), steps: [{ id: "text", type: "sms", template: { body: "First" } }] });
    await api(key, "PUT", "/v1/workflows/remind", { ...remind("x"), steps: [{ id: "text", type: "sms", template: { body: "Second" } }] });
    expect((await api(key, "POST", "/v1/workflows/remind/revert", { version: 1 })).status).toBe(200);
    const transactionId = await trigger(key, { workflow: "remind", to: person() });
    const [text] = await settledMessages(key, transactionId, 1);
    expect((await messageDetail(key, text!.id)).content).toMatchObject({ body: "First" });
  });
});
