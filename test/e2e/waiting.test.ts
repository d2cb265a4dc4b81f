import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { ledgerOf } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, trigger, eventually } from "./helpers";

const parkedAt = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const statusOf = async (key: string, transactionId: string) => {
  const res = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
  expect(res.status).toBe(200);
  return res.body;
};

const cancel = (key: string, transactionId: string) => api<{ status: string }>(key, "DELETE", "/v1/trigger", { transactionId });

const person = () => ({ subscriberId: unique("p"), email: "p@example.com", phone: "+41791234567" });

describe("GET /v1/trigger/{transactionId}: what is waiting", () => {
  it("shows the sent email and the sms step waiting on the delay until it ends; after a cancel nothing waits", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "remind",
      steps: [
        { id: "mail", type: "email", template: { subject: "Welcome", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "Still there?" } },
      ],
    });
    const to = person();
    const transactionId = await trigger(key, { workflow: "remind", to });
    const [fireAt] = await eventually(async () => {
      const at = await parkedAt(id, transactionId);
      return at.length ? at : null;
    });
    const status = await eventually(async () => {
      const s = await statusOf(key, transactionId);
      return s.messages.byStatus.sent === 1 ? s : null;
    });
    expect(status).toMatchObject({ status: "processing", messages: { total: 1, byStatus: { sent: 1 } }, waitingTotal: 1 });
    expect(status.waiting).toEqual([
      { stepId: "text", subscriberId: to.subscriberId, kind: "delay", until: new Date(fireAt!).toISOString() },
    ]);
    expect(Date.parse(status.waiting[0]!.until)).toBeGreaterThan(Date.now() + 59 * 60_000);

    expect((await cancel(key, transactionId)).body.status).toBe("cancelled");
    const after = await statusOf(key, transactionId);
    expect(after).toMatchObject({
      status: "cancelled",
      messages: { total: 2, byStatus: { sent: 1, cancelled: 1 } },
      waiting: [],
      waitingTotal: 0,
    });
  });

  it("shows a step held by the subscriber's quiet hours", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "quiet", steps: [{ id: "text", type: "sms", template: { body: "hi" } }] });
    const subscriberId = unique("q");
    await api(key, "POST", "/sub", { subscriberId, phone: "+41791234567", timezone: "UTC" });
    // Quiet all day but the minute before now: whatever the time, now is inside.
    const now = Date.now();
    const hm = (at: number) => new Date(at).toISOString().slice(11, 16);
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, {
      quietHours: { start: hm(now - 60_000), end: hm(now - 120_000) },
    });
    const transactionId = await trigger(key, { workflow: "quiet", to: subscriberId });
    const [fireAt] = await eventually(async () => {
      const at = await parkedAt(id, transactionId);
      return at.length ? at : null;
    });
    const status = await eventually(async () => {
      const s = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
      return s.status === 200 ? s.body : null;
    });
    expect(status.waiting).toEqual([{ stepId: "text", subscriberId, kind: "quiet_hours", until: new Date(fireAt!).toISOString() }]);
    await cancel(key, transactionId);
  });

  it("shows the step after a digest waiting until the window closes; after a cancel nothing waits", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "comments",
      steps: [
        { id: "collect", type: "digest", window: "PT10M" },
        { id: "mail", type: "email", template: { subject: "{{ steps.collect.count }} new", text: "Hello" } },
      ],
    });
    const to = person();
    const transactionId = await trigger(key, { workflow: "comments", to });
    const status = await eventually(async () => {
      const s = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
      return s.status === 200 && s.body.waiting.length ? s.body : null;
    });
    expect(status).toMatchObject({ waitingTotal: 1, messages: { total: 0 } });
    expect(status.waiting).toEqual([{ stepId: "mail", subscriberId: to.subscriberId, kind: "digest", until: expect.any(String) }]);
    const until = Date.parse(status.waiting[0]!.until);
    expect(until).toBeGreaterThan(Date.now() + 9 * 60_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 10 * 60_000);

    await cancel(key, transactionId);
    expect(await statusOf(key, transactionId)).toMatchObject({ waiting: [], waitingTotal: 0 });
  });

  it("shows the waits of a fan-out held by its coordinator", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "later",
      steps: [
        { id: "wait", type: "delay", for: "P1D" },
        { id: "text", type: "sms", template: { body: "hi" } },
      ],
    });
    // More than one chunk of 50: the trigger's waits live in its FanOutCoordinator.
    const to = Array.from({ length: 60 }, () => ({ subscriberId: unique("f"), phone: "+41791234567" }));
    const transactionId = await trigger(key, { workflow: "later", to });
    const status = await eventually(async () => {
      const s = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
      return s.status === 200 && s.body.waitingTotal === 60 ? s.body : null;
    });
    expect(status.waiting).toHaveLength(60);
    expect(new Set(status.waiting.map((w) => w.subscriberId))).toEqual(new Set(to.map((t) => t.subscriberId)));
    expect(status.waiting.every((w) => w.kind === "delay" && w.stepId === "text")).toBe(true);

    await cancel(key, transactionId);
    expect(await statusOf(key, transactionId)).toMatchObject({ waiting: [], waitingTotal: 0 });
  });

  it("shows nothing waiting for a trigger that is done", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "now", steps: [{ id: "text", type: "sms", template: { body: "hi" } }] });
    const transactionId = await trigger(key, { workflow: "now", to: person() });
    const status = await eventually(async () => {
      const s = await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`);
      return s.status === 200 && s.body.status === "completed" ? s.body : null;
    });
    expect(status).toMatchObject({ waiting: [], waitingTotal: 0, messages: { total: 1 } });
  });
});
