import { createMessageBatch, env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import worker from "../../src/index";
import { acceptThenCrash, deliverHeldJobs, digestDecided, digestOf, digestWaiting, ledgerOf, tickLedger } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, type MessageView, eventually } from "./helpers";

/** The parked steps of a trigger, as its ledger holds them. */
const waits = async (environmentId: string, transactionId: string) =>
  (
    await runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) =>
      ledger.waiting(environmentId, transactionId),
    )
  ).map((at) => ({ fire_at: at }));

/** Runs the ledger's alarm at the time the trigger's last parked step is due: time travel for delays. */
async function fireDelays(environmentId: string, transactionId: string) {
  const due = (await waits(environmentId, transactionId)).map((w) => w.fire_at);
  return tickLedger(environmentId, transactionId, Math.max(Date.now(), ...due));
}

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}&limit=200`)).body.data;

const emailDelaySms = (delay: Record<string, unknown>) => ({
  key: "remind",
  steps: [
    { id: "mail", type: "email", template: { subject: "Welcome {{ payload.n }}", text: "Hello" } },
    { id: "wait", type: "delay", ...delay },
    { id: "text", type: "sms", template: { body: "Reminder {{ payload.n }}" } },
  ],
});

const person = () => ({ subscriberId: unique("p"), email: "p@example.com", phone: "+41791234567" });

describe("delay steps", () => {
  it("sends nothing after the delay when the trigger is cancelled while it waits", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ for: "PT1M" }));
    const transactionId = await trigger(key, { workflow: "remind", to: person(), payload: { n: 1 } });
    await eventually(async () => (await messagesOf(key, transactionId)).some((m) => m.status === "sent"));
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    const cancel = await api<{ status: string; cancelledMessages: number; alreadySent: number }>(key, "DELETE", "/v1/trigger", {
      transactionId,
    });
    expect(cancel.body).toMatchObject({ status: "cancelled", cancelledMessages: 1, alreadySent: 1 });
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "mail").status).toBe("sent");
    expect(byStep(messages, "text").status).toBe("cancelled");
    expect(await waits(id, transactionId)).toEqual([]);
    // Even if the alarm fires later, nothing is waiting and nothing is sent.
    await tickLedger(id, transactionId, Date.now() + 120_000);
    expect((await messagesOf(key, transactionId)).map((m) => m.status).sort()).toEqual(["cancelled", "sent"]);
  });

  it("continues after the delay once its alarm fires, and records when it waited until", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ for: "PT1H" }));
    const transactionId = await trigger(key, { workflow: "remind", to: person(), payload: { n: 2 } });
    const [parked] = await eventually(async () => {
      const w = await waits(id, transactionId);
      return w.length ? w : null;
    });
    expect(parked!.fire_at).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect((await messagesOf(key, transactionId)).map((m) => m.stepId)).toEqual(["mail"]);

    await fireDelays(id, transactionId);
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "text").status).toBe("sent");
    const detail = await messageDetail(key, byStep(messages, "text").id);
    expect(detail.events[0]!.detail).toMatchObject({ delay: "wait", delayedUntil: new Date(parked!.fire_at).toISOString() });
    const status = await api<{ status: string }>(key, "GET", `/v1/trigger/${transactionId}`);
    expect(status.body.status).toBe("completed");
  });

  it("keeps a 20-day delay across an eviction of its object (beyond any Queue delay)", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ for: "P20D" }));
    const transactionId = await trigger(key, { workflow: "remind", to: person(), payload: { n: 3 } });
    await eventually(async () => (await waits(id, transactionId)).length === 1);
    await evictDurableObject(ledgerOf(id, transactionId));
    const [parked] = await waits(id, transactionId);
    expect(parked!.fire_at - Date.now()).toBeGreaterThan(19 * 24 * 3_600_000);
    await fireDelays(id, transactionId);
    const messages = await settledMessages(key, transactionId, 2);
    expect(messages.every((m) => m.status === "sent")).toBe(true);
  });

  it("sends at once when delay.until is in the past, and says so in the tracking log", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ until: "{{ payload.sendAt }}" }));
    const transactionId = await trigger(key, { workflow: "remind", to: person(), payload: { n: 4, sendAt: "2020-01-01T00:00:00Z" } });
    const messages = await settledMessages(key, transactionId, 2);
    expect(messages.every((m) => m.status === "sent")).toBe(true);
    const detail = await messageDetail(key, byStep(messages, "text").id);
    expect(detail.events[0]!.detail).toMatchObject({ delay: "wait", note: "delay.until was in the past: sent at once" });
  });

  it("waits until the next 09:00 on a weekday in the subscriber's time zone", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ until: { localTime: "09:00", days: ["mon", "tue", "wed", "thu", "fri"] } }));
    const subscriber = { ...person(), timezone: "Asia/Tokyo" };
    const transactionId = await trigger(key, { workflow: "remind", to: subscriber, payload: { n: 5 } });
    const [parked] = await eventually(async () => {
      const w = await waits(id, transactionId);
      return w.length ? w : null;
    });
    const local = new Intl.DateTimeFormat("en-US", {
      timeZone: "Asia/Tokyo",
      hour: "2-digit",
      minute: "2-digit",
      weekday: "short",
      hourCycle: "h23",
    }).format(new Date(parked!.fire_at));
    expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
    expect(parked!.fire_at).toBeGreaterThan(Date.now());
  });

  it("holds a non-critical message during the subscriber's quiet hours", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "quiet", steps: [{ id: "text", type: "sms", template: { body: "hi" } }] });
    const subscriberId = unique("q");
    await api(key, "POST", "/sub", { subscriberId, phone: "+41791234567", timezone: "UTC" });
    // Quiet for the whole day except the minute before now: whatever the time, now is inside.
    const now = new Date();
    const hm = (d: Date) => `${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
    const end = hm(new Date(now.getTime() - 60_000));
    const start = hm(new Date(now.getTime() - 120_000));
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { quietHours: { start: end, end: start } });
    const transactionId = await trigger(key, { workflow: "quiet", to: subscriberId });
    await eventually(async () => (await waits(id, transactionId)).length === 1);
    expect(await messagesOf(key, transactionId)).toEqual([]);
    await fireDelays(id, transactionId);
    // Still inside quiet hours when it wakes (the clock has not moved), so it parks again.
    await eventually(async () => (await waits(id, transactionId)).length === 1);
    expect(await messagesOf(key, transactionId)).toEqual([]);
  });
});

describe("cancellation", () => {
  it("answers completed when the trigger has already finished", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "fast", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hello" } }] });
    const transactionId = await trigger(key, { workflow: "fast", to: person() });
    await eventually(async () => (await api<{ status: string }>(key, "GET", `/v1/trigger/${transactionId}`)).body.status === "completed");
    const res = await api<{ status: string; cancelledMessages: number; alreadySent: number }>(key, "DELETE", "/v1/trigger", {
      transactionId,
    });
    expect(res.body).toMatchObject({ status: "completed", cancelledMessages: 0, alreadySent: 1 });
  });

  it("records every planned message cancelled when the trigger is cancelled before it runs", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, emailDelaySms({ for: "PT1M" }));
    // Held in the ledger, so the cancellation surely comes first; then the Queue delivers the job.
    const { transactionId } = await acceptThenCrash(id, "remind", [person(), person()]);
    const res = await api<{ cancelledMessages: number }>(key, "DELETE", "/v1/trigger", { transactionId });
    expect(res.body.cancelledMessages).toBe(4);
    await deliverHeldJobs(id, transactionId);
    const messages = await settledMessages(key, transactionId, 4);
    expect(messages.every((m) => m.status === "cancelled")).toBe(true);
  });
});

describe("exactly-once sends", () => {
  it("sends once when the same job reaches several consumers at the same time", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "race", steps: [{ id: "mail", type: "email", template: { subject: "race", text: "Hello" } }] });
    const subscriberId = unique("r");
    await api(key, "POST", "/sub", { subscriberId, email: "race@example.com" });
    const transactionId = await trigger(key, { workflow: "race", to: subscriberId });
    const job = { v: 1, type: "recipients", environmentId: id, transactionId, chunk: 0, subscriberIds: [subscriberId] };
    const consume = (n: number) =>
      worker.queue(createMessageBatch("clarion-delivery-0", [{ id: `race-${n}`, timestamp: new Date(), attempts: 1, body: job }]), env);
    await Promise.all([consume(1), consume(2), consume(3)]);
    const [message] = await settledMessages(key, transactionId, 1);
    const captures = await api<{ data: unknown[] }>(key, "GET", `/v1/sandbox/messages?messageId=${message!.id}`);
    expect(captures.body.data).toHaveLength(1);
  });
});

describe("throttle steps", () => {
  it("lets `limit` runs per subscriber and key through per window and skips the rest as throttled", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "alerts",
      steps: [
        { id: "limit", type: "throttle", window: "PT1H", limit: 2, key: "{{ payload.project }}" },
        { id: "mail", type: "email", template: { subject: "alert", text: "Hello" } },
      ],
    });
    const subscriber = person();
    const statuses: string[] = [];
    for (const project of ["a", "a", "a", "b"]) {
      const transactionId = await trigger(key, { workflow: "alerts", to: subscriber, payload: { project } });
      const [m] = await settledMessages(key, transactionId, 1);
      statuses.push(m!.status);
      if (m!.status === "skipped") expect((await messageDetail(key, m!.id)).events[0]!.detail).toMatchObject({ reason: "throttled" });
    }
    expect(statuses).toEqual(["sent", "sent", "skipped", "sent"]);
  });
});

describe("digest steps", () => {
  const digestWorkflow = (mode: "fixed" | "lookback") => ({
    key: `comments-${mode}`,
    steps: [
      { id: "collect", type: "digest", window: "PT10M", key: "{{ payload.postId }}", mode },
      {
        id: "mail",
        type: "email",
        template: {
          subject: "{{ steps.collect.count }} new comments",
          text: "{% for e in steps.collect.events %}{{ e.text }};{% endfor %}",
        },
      },
    ],
  });
  const digestStub = (environmentId: string, workflowKey: string, subscriberId: string, key: string) =>
    digestOf(environmentId, workflowKey, subscriberId, key);

  async function collectThree(mode: "fixed" | "lookback") {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, digestWorkflow(mode));
    const subscriber = person();
    const transactionIds: string[] = [];
    const stub = digestStub(id, `comments-${mode}`, subscriber.subscriberId, "p1");
    for (const text of ["one", "two", "three"]) {
      const transactionId = await trigger(key, { workflow: `comments-${mode}`, to: subscriber, payload: { postId: "p1", text } });
      transactionIds.push(transactionId);
      // In order: the next trigger goes once the digest has decided about this one.
      await eventually(async () => {
        return digestDecided(stub, transactionId);
      });
    }
    return { id, key, subscriber, transactionIds, stub };
  }

  it("collects three triggers in the window into one message with their events", async () => {
    const { key, transactionIds, stub } = await collectThree("fixed");
    await eventually(async () => {
      return (await digestWaiting(stub)) === 3;
    });
    expect(await messagesOf(key, transactionIds[0]!)).toEqual([]);
    await runDurableObjectAlarm(stub);
    const [first] = await settledMessages(key, transactionIds[0]!, 1);
    expect(first).toMatchObject({ status: "sent", subject: "3 new comments" });
    expect((await messageDetail(key, first!.id)).content).toMatchObject({ text: "one;two;three;" });
    for (const other of transactionIds.slice(1)) {
      const [m] = await settledMessages(key, other, 1);
      expect(m!.status).toBe("skipped");
      expect((await messageDetail(key, m!.id)).events[0]!.detail).toMatchObject({ reason: "digested" });
    }
  });

  it("in look-back mode sends the first at once and digests those that follow", async () => {
    const { key, transactionIds, stub } = await collectThree("lookback");
    const [first] = await settledMessages(key, transactionIds[0]!, 1);
    expect(first).toMatchObject({ status: "sent", subject: "1 new comments" });
    await eventually(async () => {
      return (await digestWaiting(stub)) === 2;
    });
    await runDurableObjectAlarm(stub);
    const [second] = await settledMessages(key, transactionIds[1]!, 1);
    expect(second).toMatchObject({ status: "sent", subject: "2 new comments" });
    expect((await messageDetail(key, second!.id)).content).toMatchObject({ text: "two;three;" });
    const [third] = await settledMessages(key, transactionIds[2]!, 1);
    expect(third!.status).toBe("skipped");
  });

  it("takes a cancelled trigger's event out of the pending digest", async () => {
    const { key, transactionIds, stub } = await collectThree("fixed");
    await eventually(async () => {
      return (await digestWaiting(stub)) === 3;
    });
    const cancel = await api<{ status: string }>(key, "DELETE", "/v1/trigger", { transactionId: transactionIds[0] });
    expect(cancel.body.status).toBe("cancelled");
    const [cancelled] = await settledMessages(key, transactionIds[0]!, 1);
    expect(cancelled!.status).toBe("cancelled");
    await runDurableObjectAlarm(stub);
    const [sent] = await settledMessages(key, transactionIds[1]!, 1);
    expect(sent).toMatchObject({ status: "sent", subject: "2 new comments" });
    expect((await messageDetail(key, sent!.id)).content).toMatchObject({ text: "two;three;" });
  });
});
