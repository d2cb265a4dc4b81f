import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FanOutCoordinator } from "../../src/durable-objects/fan-out-coordinator";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { SubscriberErased } from "../../src/features/subscribers/schemas";
import { createSandboxEnvironment, triggerRow, unique } from "../factories";
import { coordinatorOf, digestDecided, digestOf, digestWaiting, ledgerOf, readTrigger, tickCoordinator, tickLedger } from "../ledger";
import { api, expectProblem } from "../request";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, type MessageView, eventually } from "./helpers";
import { loggedTrigger } from "../log";

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}&limit=200`)).body.data;

const waits = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const erase = (key: string, subscriberId: string) => api<SubscriberErased>(key, "DELETE", `/v1/subscribers/${subscriberId}`);

/** A subscriber whose every personal field is a string no other test data contains. */
function person() {
  const tag = unique("p").replace(/[^a-z0-9]/gi, "");
  return {
    subscriberId: `user-${tag}`,
    email: `${tag}@example.com`,
    phone: `+4179${1_000_000 + Math.floor(Math.random() * 8_999_999)}`,
    firstName: `Ada${tag}`,
    lastName: `Lovelace${tag}`,
  };
}

/** Every GET of the API that could show a subscriber or their messages, as one text. */
async function everyGetAnswer(key: string, subscriberId: string, transactionId: string, topic: string) {
  const messages = (await api<{ data: MessageView[] }>(key, "GET", "/v1/messages?limit=200")).body.data;
  const paths = [
    "/v1/subscribers?limit=200",
    `/v1/subscribers/${subscriberId}`,
    `/v1/subscribers/${subscriberId}/preferences`,
    "/v1/messages?limit=200",
    `/v1/messages?subscriberId=${subscriberId}&limit=200`,
    ...messages.map((m) => `/v1/messages/${m.id}`),
    `/v1/trigger/${transactionId}`,
    "/v1/topics",
    `/v1/topics/${topic}`,
    `/v1/topics/${topic}/subscribers?limit=500`,
    "/v1/sandbox/messages?limit=500",
    "/v1/suppressions?limit=200",
  ];
  const answers = await Promise.all(paths.map(async (path) => JSON.stringify((await api(key, "GET", path)).body)));
  return answers.join("\n");
}

const personalValues = (p: ReturnType<typeof person>) => [p.email, p.phone, p.firstName, p.lastName];

describe("DELETE /v1/subscribers/{subscriberId}", () => {
  it("answers 404 subscriber_not_found for an unknown subscriber", async () => {
    const { key } = await createSandboxEnvironment();
    expectProblem(await erase(key, unique("nobody")), 404, "subscriber_not_found");
  });

  it("leaves none of their personal data in any GET answer, and keeps the message counts", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "welcome",
      steps: [
        { id: "mail", type: "email", template: { subject: "Hello {{ subscriber.firstName }}", html: "<p>{{ subscriber.lastName }}</p>" } },
        { id: "text", type: "sms", template: { body: "Hi {{ subscriber.firstName }} {{ subscriber.lastName }}" } },
      ],
    });
    const gone = person();
    const kept = person();
    const topic = unique("topic").toLowerCase();
    await api(key, "POST", "/v1/topics", { key: topic, name: "Readers" });
    await api(key, "POST", "/sub", { ...kept, channels: { push: [{ provider: "fcm", token: "kept-token" }] } });
    const transactionId = await trigger(key, { workflow: "welcome", to: [gone, kept], payload: {} });
    await settledMessages(key, transactionId, 4);
    await api(key, "POST", "/sub", { subscriberId: gone.subscriberId, channels: { push: [{ provider: "fcm", token: "gone-token" }] } });
    await api(key, "PUT", `/v1/subscribers/${gone.subscriberId}/preferences`, {
      channels: { push: false },
      quietHours: { start: "22:00", end: "07:00" },
    });
    await api(key, "POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: [gone.subscriberId, kept.subscriberId] });
    // A bounce of each of their addresses put them on the suppression list.
    for (const [channel, address] of [
      ["email", gone.email],
      ["sms", gone.phone],
      ["email", kept.email],
    ]) {
      await env.DB.prepare(
        "INSERT INTO suppressions (environment_id, address, channel, reason, created_at) VALUES (?, ?, ?, 'hard_bounce', ?)",
      )
        .bind(id, address, channel, Date.now())
        .run();
    }
    const statusBefore = (await api(key, "GET", `/v1/trigger/${transactionId}`)).body;
    const before = await everyGetAnswer(key, gone.subscriberId, transactionId, topic);
    for (const value of personalValues(gone)) expect(before).toContain(value);

    const res = await erase(key, gone.subscriberId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subscriberId: gone.subscriberId,
      erased: { profile: true, channels: 1, preferences: 2, topics: 1, messagesRedacted: 2, suppressions: 2, waitingStepsCancelled: 0 },
    });

    const after = await everyGetAnswer(key, gone.subscriberId, transactionId, topic);
    for (const value of personalValues(gone)) expect(after).not.toContain(value);
    for (const value of personalValues(kept)) expect(after).toContain(value);
    expect((await api(key, "GET", `/v1/trigger/${transactionId}`)).body).toEqual(statusBefore);
    const theirs = (await messagesOf(key, transactionId)).filter((m) => m.subscriberId === gone.subscriberId);
    expect(theirs.map((m) => [m.stepId, m.status, m.to]).sort()).toEqual([
      ["mail", "sent", null],
      ["text", "sent", null],
    ]);
    const detail = await messageDetail(key, byStep(theirs, "mail").id);
    expect(detail).toMatchObject({ subject: null, preview: null, content: null });
    expect(detail.events.map((e) => [e.status, e.detail])).toEqual([
      ["queued", null],
      ["sending", null],
      ["sent", null],
    ]);
    expect(JSON.parse((await triggerRow(id, transactionId))!.recipients)).toEqual([gone.subscriberId, kept]);
    expect(JSON.stringify(await readTrigger(id, transactionId))).not.toContain(gone.email);
    expectProblem(await api(key, "GET", `/v1/subscribers/${gone.subscriberId}`), 404, "subscriber_not_found");
  });

  it("redacts the stored Idempotency-Key answers that showed them: a replay gives back only their subscriberId", async () => {
    const { key } = await createSandboxEnvironment();
    const gone = person();
    const kept = person();
    const headers = { "idempotency-key": unique("idem") };
    const keptHeaders = { "idempotency-key": unique("idem") };
    const first = await api(key, "POST", "/sub", gone, { headers });
    expect(first.status).toBe(201);
    await api(key, "POST", "/sub", kept, { headers: keptHeaders });
    expect((await erase(key, gone.subscriberId)).status).toBe(200);

    const replay = await api(key, "POST", "/sub", gone, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(replay.body).toEqual({ subscriberId: gone.subscriberId });
    for (const value of personalValues(gone)) expect(JSON.stringify(replay.body)).not.toContain(value);
    // The retry did not create them again, and someone else's stored answer is untouched.
    expectProblem(await api(key, "GET", `/v1/subscribers/${gone.subscriberId}`), 404, "subscriber_not_found");
    expect((await api(key, "POST", "/sub", kept, { headers: keptHeaders })).body).toMatchObject({ email: kept.email });
  });

  it("removes the profile of someone who was only a trigger's actor, in the log and in the ledger", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "mention", steps: [{ id: "mail", type: "email", template: { subject: "Hi", html: "<p>Hi</p>" } }] });
    const actor = person();
    const reader = person();
    await api(key, "POST", "/sub", actor);
    const transactionId = await trigger(key, { workflow: "mention", to: [reader], actor, payload: {} });
    await settledMessages(key, transactionId, 1);
    const actorOf = async () => JSON.stringify((await loggedTrigger(id, transactionId))!.actor);
    expect(await actorOf()).toContain(actor.email);

    expect((await erase(key, actor.subscriberId)).status).toBe(200);
    expect(JSON.parse(await actorOf())).toBe(actor.subscriberId);
    const ledger = JSON.stringify(await readTrigger(id, transactionId));
    for (const value of personalValues(actor)) expect(ledger).not.toContain(value);
    expect(ledger).toContain(reader.email);
  });

  it("forgets their address in the ledger's record of what was sent", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "note", steps: [{ id: "mail", type: "email", template: { subject: "Hi", html: "<p>Hi</p>" } }] });
    const gone = person();
    const kept = person();
    const transactionId = await trigger(key, { workflow: "note", to: [gone, kept], payload: {} });
    await settledMessages(key, transactionId, 2);
    const reports = () =>
      runInDurableObject(ledgerOf(id, transactionId), (_: TriggerLedger, state) =>
        state.storage.sql
          .exec<{ report: string }>("SELECT report FROM claims WHERE env = ? AND report IS NOT NULL", id)
          .toArray()
          .map((r) => r.report)
          .join("\n"),
      );
    expect(await reports()).toContain(gone.email);

    expect((await erase(key, gone.subscriberId)).status).toBe(200);
    const after = await reports();
    expect(after).not.toContain(gone.email);
    expect(after).toContain(kept.email);
  });

  it("cancels their step waiting on a delay, with reason subscriber_deleted", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "remind",
      steps: [
        { id: "mail", type: "email", template: { subject: "Welcome", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "Reminder" } },
      ],
    });
    const gone = person();
    const transactionId = await trigger(key, { workflow: "remind", to: gone });
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    const res = await erase(key, gone.subscriberId);
    expect(res.body.erased).toMatchObject({ messagesRedacted: 1, waitingStepsCancelled: 1 });
    expect(await waits(id, transactionId)).toEqual([]);
    const messages = await settledMessages(key, transactionId, 2);
    const text = byStep(messages, "text");
    expect(text.status).toBe("cancelled");
    expect((await messageDetail(key, text.id)).events).toEqual([
      expect.objectContaining({ status: "cancelled", detail: { reason: "subscriber_deleted" } }),
    ]);
    await eventually(async () => (await api<{ status: string }>(key, "GET", `/v1/trigger/${transactionId}`)).body.status === "completed");
    // The delay's time comes and goes: nothing of theirs is sent.
    await tickLedger(id, transactionId, Date.now() + 2 * 3_600_000);
    expect((await messagesOf(key, transactionId)).map((m) => m.status).sort()).toEqual(["cancelled", "sent"]);
  });

  it("cancels their step waiting in a large fan-out's coordinator and lets the others continue", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "wide-delay",
      steps: [
        { id: "mail", type: "email", template: { subject: "now", text: "now" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "later" } },
      ],
    });
    const to = Array.from({ length: 60 }, person);
    const gone = to[7]!;
    const transactionId = await trigger(key, { workflow: "wide-delay", to });
    const coordinator = coordinatorOf(id, transactionId);
    const waiting = () => runInDurableObject(coordinator, (c: FanOutCoordinator) => c.waiting());
    await eventually(async () => (await waiting()).length === 2, 30_000);

    const res = await erase(key, gone.subscriberId);
    expect(res.body.erased).toMatchObject({ messagesRedacted: 1, waitingStepsCancelled: 1 });
    const cancelled = await eventually(async () => {
      const text = (await messagesOf(key, transactionId)).find((m) => m.subscriberId === gone.subscriberId && m.stepId === "text");
      return text?.status === "cancelled" ? text : null;
    });
    expect((await messageDetail(key, cancelled.id)).events[0]).toMatchObject({ detail: { reason: "subscriber_deleted" } });

    await tickCoordinator(id, transactionId, Date.now() + 2 * 3_600_000);
    const messages = await settledMessages(key, transactionId, 120, 30_000);
    const texts = messages.filter((m) => m.stepId === "text");
    expect(texts.filter((m) => m.status === "sent")).toHaveLength(59);
    expect(texts.find((m) => m.subscriberId === gone.subscriberId)?.status).toBe("cancelled");
    await eventually(async () => (await api<{ status: string }>(key, "GET", `/v1/trigger/${transactionId}`)).body.status === "completed");
  });

  it("takes their event out of a pending digest, with reason subscriber_deleted", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "comments",
      steps: [
        { id: "collect", type: "digest", window: "PT10M", key: "{{ payload.postId }}", mode: "fixed" },
        { id: "mail", type: "email", template: { subject: "{{ steps.collect.count }} new comments", text: "See them" } },
      ],
    });
    const gone = person();
    const transactionId = await trigger(key, { workflow: "comments", to: gone, payload: { postId: "p1", text: "secret words" } });
    const digest = digestOf(id, "comments", gone.subscriberId, "p1");
    await eventually(async () => (await digestWaiting(digest)) === 1);

    const res = await erase(key, gone.subscriberId);
    expect(res.body.erased.waitingStepsCancelled).toBe(1);
    const [mail] = await settledMessages(key, transactionId, 1);
    expect(mail).toMatchObject({ stepId: "mail", status: "cancelled" });
    expect((await messageDetail(key, mail!.id)).events[0]).toMatchObject({ detail: { reason: "subscriber_deleted" } });
    // Everything the digest kept of them is gone with its storage.
    expect(await digestWaiting(digest)).toBe(0);
    expect(await digestDecided(digest, transactionId)).toBe(false);
  });
});
