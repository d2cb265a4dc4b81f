// A subscriber's delivery schedule (Novu's Inbox "Schedule"), end to end: trigger → Queue →
// ledger → provider. The windows are set around the real clock, as the quiet-hours tests do.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { TriggerStatusView } from "../../src/features/messages/schemas";
import { ledgerOf, tickLedger } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, settledMessages, trigger, type MessageView, eventually } from "./helpers";

const parkedAt = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const MINUTE = 60_000;
const hm = (at: number) => new Date(at).toISOString().slice(11, 16);
/** The same window (UTC) on every day of the week. */
const everyDay = (start: number, end: number) => ({
  enabled: true,
  days: Object.fromEntries(
    ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, { enabled: true, hours: [{ start: hm(start), end: hm(end) }] }]),
  ),
});

async function subscriberWithSchedule(key: string, schedule: unknown) {
  const subscriberId = unique("s");
  await api(key, "POST", "/sub", { subscriberId, phone: "+41791234567", timezone: "UTC" });
  const res = await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { schedule });
  expect(res.status).toBe(200);
  return subscriberId;
}

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}`)).body.data;

describe("the subscriber's delivery schedule", () => {
  it("holds an SMS sent outside the schedule until the next window opens, and again if it wakes early", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "later", steps: [{ id: "text", type: "sms", template: { body: "hi" } }] });
    const now = Date.now();
    const subscriberId = await subscriberWithSchedule(key, everyDay(now + 60 * MINUTE, now + 120 * MINUTE));
    const transactionId = await trigger(key, { workflow: "later", to: subscriberId });
    const [fireAt] = await eventually(async () => {
      const at = await parkedAt(id, transactionId);
      return at.length ? at : null;
    });
    // The window's first minute, in an hour: not a minute sooner.
    expect(fireAt).toBe(Math.floor((now + 60 * MINUTE) / MINUTE) * MINUTE);
    const status = (await api<TriggerStatusView>(key, "GET", `/v1/trigger/${transactionId}`)).body;
    expect(status.waiting).toEqual([{ stepId: "text", subscriberId, kind: "schedule", until: new Date(fireAt!).toISOString() }]);
    expect(await messagesOf(key, transactionId)).toEqual([]);

    // The ledger's alarm releases it, but the run finds the window still closed (the real clock
    // has not moved an hour): it parks again for the same time and sends nothing.
    await tickLedger(id, transactionId, fireAt!);
    await eventually(async () => (await parkedAt(id, transactionId)).length === 1);
    expect(await parkedAt(id, transactionId)).toEqual([fireAt]);
    expect(await messagesOf(key, transactionId)).toEqual([]);
    await api(key, "DELETE", "/v1/trigger", { transactionId });
  });

  it("sends at once inside the schedule", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "now", steps: [{ id: "text", type: "sms", template: { body: "hi" } }] });
    const now = Date.now();
    const subscriberId = await subscriberWithSchedule(key, everyDay(now - 5 * MINUTE, now + 60 * MINUTE));
    const transactionId = await trigger(key, { workflow: "now", to: subscriberId });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ stepId: "text", status: "sent" });
  });

  it("never holds an in-app notification", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "bell", steps: [{ id: "bell", type: "in_app", template: { body: "hi" } }] });
    const now = Date.now();
    const subscriberId = await subscriberWithSchedule(key, everyDay(now + 60 * MINUTE, now + 120 * MINUTE));
    const transactionId = await trigger(key, { workflow: "bell", to: subscriberId });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ stepId: "bell", status: "delivered" });
  });
});
