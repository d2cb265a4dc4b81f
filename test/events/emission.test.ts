import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { EventType } from "../../src/contract/event-types";
import { EVENT_DATA } from "../../src/features/events/payloads";
import { cancelByTransactionId } from "../../src/features/triggers/service";
import type { EventList } from "../../src/features/events/schemas";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { createWorkflow, postResendWebhook } from "../e2e/helpers";
import { createEnvironment, createIntegration, createSandboxEnvironment, fakeProviderScenario, trigger, unique } from "../factories";
import { acceptThenCrash, deliverHeldJobs } from "../ledger";
import { api } from "../request";
import { holdWebhooks } from "../webhook-queue";
import { deliveredMessages } from "../held-triggers";
import { dataOf } from "../../src/features/data";

const RESEND_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

type Received = { id: string; type: EventType; timestamp: string; environment: string; data: Record<string, unknown> };
type Receiver = ReturnType<typeof fakeProviderScenario>;

/** An environment, a Resend integration on a fake, and one endpoint on a local receiver (all types unless `events`). */
async function setUp(options: { events?: EventType[]; endpoint?: boolean } = {}) {
  const environment = await createEnvironment();
  const provider = fakeProviderScenario();
  const integrationId = await createIntegration(environment.id, {
    provider: "resend",
    channel: "email",
    credentials: { apiKey: "re_x", from: "a@acme.dev", webhookSecret: RESEND_SECRET },
    baseUrl: provider.baseUrl,
    primary: true,
  });
  const receiver = fakeProviderScenario();
  let secret = "";
  if (options.endpoint !== false) {
    const res = await api<WebhookEndpointCreated>(environment.key, "POST", "/v1/webhook-endpoints", {
      url: `${receiver.baseUrl}/events`,
      ...(options.events ? { events: options.events } : {}),
    });
    expect(res.status).toBe(201);
    secret = res.body.secret;
  }
  return { ...environment, provider, integrationId, receiver, secret, hooks: holdWebhooks() };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/**
 * Accepts a trigger into its ledger as the API does and runs its delivery now, with the webhook
 * Queue held: the events it writes wait in `hooks` until `receivedAll` delivers them.
 */
async function triggerNow({ id, hooks }: Pick<Setup, "id" | "hooks">, workflowKey: string, to: Record<string, unknown>) {
  const { transactionId } = await acceptThenCrash(id, workflowKey, to);
  await deliverHeldJobs(id, transactionId, hooks.env);
  return transactionId;
}

/**
 * Every request the receiver got, verified as a receiver does with `standardwebhooks` (throws on a
 * bad signature), its `data` parsed with the type's schema from the OpenAPI document (throws on drift).
 */
const verifiedAll = async (receiver: Receiver, secret: string) =>
  (await receiver.captured()).map((r) => {
    const payload = new Webhook(secret).verify(r.body, r.headers) as Received;
    EVENT_DATA[payload.type].parse(payload.data);
    return { webhookId: r.headers["webhook-id"], payload };
  });

/**
 * Delivers what the webhook Queue holds, as the Queue would, then answers every verified event the
 * receiver got (duplicates kept), having checked there is one of each of `types`.
 */
async function receivedUntil({ hooks, receiver, secret }: Pick<Setup, "hooks" | "receiver" | "secret">, types: EventType[]) {
  await hooks.drain();
  const got = (await verifiedAll(receiver, secret)).map((g) => g.payload);
  for (const type of types) expect(got.map((g) => g.type)).toContain(type);
  return got;
}

const ofType = (received: Received[], type: EventType) => received.filter((r) => r.type === type);

const EMAIL_STEP = { id: "mail", type: "email", template: { subject: "Hello", text: "Hello" } };

describe("message events", () => {
  it("sends message.sent, then message.bounced and suppression.added from the provider's webhook, and trigger.completed with counts, each once", async () => {
    const setup = await setUp();
    const { key, slug, provider, integrationId, hooks } = setup;
    const providerId = `re_${unique("id")}`;
    await provider.script([{ status: 200, body: { id: providerId } }]);
    const workflow = await createWorkflow(key, { steps: [EMAIL_STEP] });
    const subscriberId = unique("s");
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId, email: "Gone@Example.com" });
    const [message] = await deliveredMessages(key, transactionId, 1);
    // The counts are the trigger's when it finished: let it finish before the bounce arrives.
    await receivedUntil(setup, ["message.sent", "trigger.completed"]);

    const bounce = JSON.stringify({
      type: "email.bounced",
      created_at: new Date().toISOString(),
      data: { email_id: providerId, bounce: { type: "Permanent", message: "550 no such user" } },
    });
    expect((await postResendWebhook(integrationId, bounce, RESEND_SECRET, hooks)).status).toBe(200);
    // The provider retries its webhook: no news, no second event.
    expect((await postResendWebhook(integrationId, bounce, RESEND_SECRET, hooks)).status).toBe(200);

    const received = await receivedUntil(setup, ["message.sent", "trigger.completed", "message.bounced", "suppression.added"]);
    const ids = { messageId: message!.id, transactionId, workflow: workflow.key, subscriberId, stepId: "mail", channel: "email" };
    expect(ofType(received, "message.sent")).toEqual([
      expect.objectContaining({ environment: slug, data: { ...ids, provider: "resend", status: "sent", reason: null } }),
    ]);
    expect(ofType(received, "trigger.completed")).toEqual([
      expect.objectContaining({ data: { transactionId, workflow: workflow.key, status: "completed", counts: { sent: 1 } } }),
    ]);
    expect(ofType(received, "message.bounced")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ ...ids, status: "bounced" }) }),
    ]);
    expect(ofType(received, "suppression.added")).toEqual([
      expect.objectContaining({
        data: { address: "gone@example.com", channel: "email", reason: "hard_bounce", provider: "resend", messageId: message!.id },
      }),
    ]);
    // Ids and states, never content.
    expect(JSON.stringify(ofType(received, "message.sent"))).not.toContain("Hello");
    expect(new Set(received.map((r) => r.id)).size).toBe(received.length);

    const log = await api<EventList>(key, "GET", "/v1/events?limit=50");
    expect(log.body.data.map((e) => e.id).sort()).toEqual(received.map((r) => r.id).sort());
  });

  it.each([
    ["missing_address", { subscriberId: "no-email" }, []],
    [
      "condition",
      { subscriberId: "cond", email: "c@example.com" },
      [{ ...EMAIL_STEP, if: { field: "payload.send", op: "eq", value: true } }],
    ],
  ] as const)("sends message.skipped with the reason %s", async (reason, to, steps) => {
    const setup = await setUp();
    const workflow = await createWorkflow(setup.key, { steps: steps.length ? steps : [EMAIL_STEP] });
    const transactionId = await triggerNow(setup, workflow.key, { ...to, subscriberId: unique(to.subscriberId) });
    await deliveredMessages(setup.key, transactionId, 1);
    const received = await receivedUntil(setup, ["message.skipped", "trigger.completed"]);
    expect(ofType(received, "message.skipped")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ status: "skipped", reason }) }),
    ]);
    expect(ofType(received, "trigger.completed")[0]!.data.counts).toEqual({ skipped: 1 });
  });

  it("sends message.failed with the provider's error code when the provider refuses the message", async () => {
    const setup = await setUp({ events: ["message.failed"] });
    const { key, provider } = setup;
    await provider.script([{ status: 422, body: { name: "validation_error", message: "bad from" } }]);
    const workflow = await createWorkflow(key, { steps: [EMAIL_STEP] });
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId: unique("s"), email: "f@example.com" });
    const [message] = await deliveredMessages(key, transactionId, 1);
    const received = await receivedUntil(setup, ["message.failed"]);
    expect(received).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ messageId: message!.id, status: message!.status }) }),
    ]);
    expect(received[0]!.data.reason).toEqual(expect.any(String));
  });

  it("holds the endpoint's type filter, and writes no event that no endpoint takes", async () => {
    const setup = await setUp({ events: ["trigger.completed"] });
    const { key, provider } = setup;
    await provider.script([{ status: 200, body: { id: `re_${unique("id")}` } }]);
    const workflow = await createWorkflow(key, { steps: [EMAIL_STEP] });
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId: unique("s"), email: "t@example.com" });
    await deliveredMessages(key, transactionId, 1);
    const received = await receivedUntil(setup, ["trigger.completed"]);
    expect(received.map((r) => r.type)).toEqual(["trigger.completed"]);
    // message.sent had no taker: not written, so not in the log either.
    expect((await api<EventList>(key, "GET", "/v1/events?type=message.sent")).body.data).toEqual([]);
  });

  it("writes no event at all in an environment without endpoints", async () => {
    const setup = await setUp({ endpoint: false });
    const { key, provider } = setup;
    await provider.script([{ status: 200, body: { id: `re_${unique("id")}` } }]);
    const workflow = await createWorkflow(key, { steps: [EMAIL_STEP] });
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId: unique("s"), email: "n@example.com" });
    await deliveredMessages(key, transactionId, 1);
    expect((await api<{ status: string }>(key, "GET", `/v1/trigger/${transactionId}`)).body.status).toBe("completed");
    const log = await api<EventList>(key, "GET", "/v1/events");
    expect(log.body.data.filter((e) => e.type !== "subscriber.created")).toEqual([]);
  });

  it("delivers message.sent to a receiver that answers 500 first, with the same webhook-id on the retry", async () => {
    const setup = await setUp({ events: ["message.sent"] });
    const { key, provider, receiver, secret, hooks } = setup;
    await provider.script([{ status: 200, body: { id: `re_${unique("id")}` } }]);
    await receiver.script([{ status: 500 }, { status: 200 }]);
    const workflow = await createWorkflow(key, { steps: [EMAIL_STEP] });
    await triggerNow(setup, workflow.key, { subscriberId: unique("s"), email: "r@example.com" });
    // The Queue hands the refused delivery over again (its delay skipped here).
    await hooks.drain({ retries: 1 });
    const got = await verifiedAll(receiver, secret);
    expect(got).toHaveLength(2);
    expect(got.map((g) => g.payload.type)).toEqual(["message.sent", "message.sent"]);
    expect(got[1]!.webhookId).toBe(got[0]!.webhookId);
    expect(got[1]!.payload.id).toBe(got[0]!.payload.id);
  });
});

describe("tracking events", () => {
  it("sends message.opened from the pixel and message.clicked from a tracked link", async () => {
    // The sandbox provider keeps what it sent, so the test can follow the message's own links.
    const environment = await createSandboxEnvironment();
    const receiver = fakeProviderScenario();
    const endpoint = await api<WebhookEndpointCreated>(environment.key, "POST", "/v1/webhook-endpoints", {
      url: `${receiver.baseUrl}/tracked`,
      events: ["message.opened", "message.clicked"],
    });
    const workflow = await createWorkflow(environment.key, {
      steps: [
        {
          id: "mail",
          type: "email",
          tracking: { opens: true, clicks: true },
          template: { subject: "news", html: '<html><body><a href="https://acme.dev/a">read</a></body></html>' },
        },
      ],
    });
    const hooks = holdWebhooks();
    const transactionId = await triggerNow({ id: environment.id, hooks }, workflow.key, {
      subscriberId: unique("s"),
      email: "o@example.com",
    });
    const [message] = await deliveredMessages(environment.key, transactionId, 1);
    const captures = await api<{ data: { content: { html: string } }[] }>(
      environment.key,
      "GET",
      `/v1/sandbox/messages?messageId=${message!.id}`,
    );
    const html = captures.body.data[0]!.content.html;
    const pixel = new URL(/<img src="([^"]+)"/.exec(html)![1]!);
    const click = new URL(/<a href="([^"]+)"/.exec(html)![1]!.replaceAll("&amp;", "&"));
    expect((await hooks.fetch(pixel.pathname)).status).toBe(200);
    expect((await hooks.fetch(`${click.pathname}${click.search}`, { redirect: "manual" })).status).toBe(302);
    const received = await receivedUntil({ hooks, receiver, secret: endpoint.body.secret }, ["message.opened", "message.clicked"]);
    expect(received.map((r) => r.type).sort()).toEqual(["message.clicked", "message.opened"]);
    for (const r of received) expect(r.data).toMatchObject({ messageId: message!.id, channel: "email" });
  });
});

describe("trigger.cancelled", () => {
  it("is sent once when a waiting trigger is cancelled, with the cancelled count", async () => {
    const setup = await setUp({ events: ["trigger.cancelled", "trigger.completed"] });
    const { key, hooks } = setup;
    const workflow = await createWorkflow(key, { steps: [{ id: "wait", type: "delay", for: "PT1H" }, EMAIL_STEP] });
    // Delivered up to its delay, where it waits.
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId: unique("s"), email: "w@example.com" });
    const cancel = await api<{ status: string }>(key, "DELETE", "/v1/trigger/", { transactionId }, { via: hooks });
    expect(cancel.body.status).toBe("cancelled");
    expect((await api<{ status: string }>(key, "DELETE", "/v1/trigger/", { transactionId }, { via: hooks })).body.status).toBe(
      "already_cancelled",
    );
    const received = await receivedUntil(setup, ["trigger.cancelled"]);
    expect(received).toEqual([
      expect.objectContaining({
        type: "trigger.cancelled",
        data: expect.objectContaining({ transactionId, workflow: workflow.key, status: "cancelled", cancelledMessages: 1 }),
      }),
    ]);
  });

  it("answers a committed cancellation normally when the webhook Queue refuses the dispatch (the sweep sends it later)", async () => {
    const { id, key } = await setUp({ events: ["trigger.cancelled"] });
    const workflow = await createWorkflow(key, { steps: [{ id: "wait", type: "delay", for: "PT1H" }, EMAIL_STEP] });
    const transactionId = unique("txn");
    await trigger(key, { workflow: workflow.key, to: { subscriberId: unique("s"), email: "w@example.com" }, transactionId });
    let sends = 0;
    const refusing = {
      ...env,
      WEBHOOK_QUEUE: {
        sendBatch: async () => {
          sends++;
          throw new Error("Queue send failed");
        },
      } as unknown as typeof env.WEBHOOK_QUEUE,
    };
    const result = await cancelByTransactionId(dataOf(env, id), refusing, transactionId);
    expect(sends).toBe(1);
    expect(result).toMatchObject({ transactionId, status: "cancelled", cancelledMessages: 1 });
    const events = await api<EventList>(key, "GET", "/v1/events");
    expect(events.body.data.map((e) => e.type)).toContain("trigger.cancelled");
  });
});

describe("in-app events", () => {
  it("sends message.seen, message.read and message.archived when the subscriber's Inbox changes, each once", async () => {
    const setup = await setUp({ events: ["message.seen", "message.read", "message.archived", "message.delivered"] });
    const { key, hooks } = setup;
    const workflow = await createWorkflow(key, { steps: [{ id: "bell", type: "in_app", template: { body: "Hi" } }] });
    const subscriberId = unique("sub");
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId });
    const [message] = await deliveredMessages(key, transactionId, 1);
    const path = `/v1/subscribers/${subscriberId}/notifications/${message!.id}`;
    expect((await api(key, "PATCH", path, { read: true }, { via: hooks })).status).toBe(200);
    expect((await api(key, "PATCH", path, { archived: true }, { via: hooks })).status).toBe(200);
    const received = await receivedUntil(setup, ["message.delivered", "message.seen", "message.read", "message.archived"]);
    expect(received.map((r) => r.type).sort()).toEqual(["message.archived", "message.delivered", "message.read", "message.seen"]);
    for (const r of received) expect(r.data).toMatchObject({ messageId: message!.id, subscriberId, channel: "in_app" });
  });
});

describe("in-app events, once per message", () => {
  it("reports seen, read and archived the first time only: unread-then-read or unarchive-then-archive is no new fact", async () => {
    const setup = await setUp({ events: ["message.seen", "message.read", "message.archived"] });
    const { key, receiver, secret, hooks } = setup;
    const workflow = await createWorkflow(key, { steps: [{ id: "bell", type: "in_app", template: { body: "Hi" } }] });
    const subscriberId = unique("sub");
    const transactionId = await triggerNow(setup, workflow.key, { subscriberId });
    const [message] = await deliveredMessages(key, transactionId, 1);
    const path = `/v1/subscribers/${subscriberId}/notifications/${message!.id}`;
    for (const change of [
      { read: true },
      { read: false },
      { read: true },
      { seen: true },
      { archived: true },
      { archived: false },
      { archived: true },
    ])
      expect((await api(key, "PATCH", path, change, { via: hooks })).status).toBe(200);
    // Nor is the Inbox's "mark all as unread", then "mark all as read".
    for (const read of [false, true])
      expect(
        (await api(key, "POST", `/v1/subscribers/${subscriberId}/notifications/mark-all`, { read }, { via: hooks })).body,
      ).toMatchObject({
        updated: 1,
      });

    // Every event sent is one of the log's: the log holds each fact once...
    const log = await api<EventList>(key, "GET", "/v1/events");
    expect(log.body.data.map((e) => e.type).sort()).toEqual(["message.archived", "message.read", "message.seen"]);
    // ...and the receiver, verifying with standardwebhooks, gets each once, under one webhook-id each.
    await hooks.drain();
    const received = await verifiedAll(receiver, secret);
    expect(received).toHaveLength(3);
    expect(received.map((r) => r.payload.type).sort()).toEqual(["message.archived", "message.read", "message.seen"]);
    expect(new Set(received.map((r) => r.webhookId)).size).toBe(3);
    expect(received.map((r) => r.webhookId).sort()).toEqual(log.body.data.map((e) => e.id).sort());
  });
});

describe("isolation", () => {
  it("keeps an environment's message events out of another's log and endpoints", async () => {
    const a = await setUp();
    const b = await setUp();
    await a.provider.script([{ status: 200, body: { id: `re_${unique("id")}` } }]);
    const workflow = await createWorkflow(a.key, { steps: [EMAIL_STEP] });
    const transactionId = await triggerNow(a, workflow.key, { subscriberId: unique("s"), email: "i@example.com" });
    await deliveredMessages(a.key, transactionId, 1);
    await receivedUntil(a, ["message.sent", "trigger.completed"]);
    await b.hooks.drain();
    const inB = await api<EventList>(b.key, "GET", "/v1/events");
    expect(inB.body.data.filter((e) => e.type.startsWith("message.") || e.type.startsWith("trigger."))).toEqual([]);
    expect(await b.receiver.captured()).toEqual([]);
    expect(env.WEBHOOK_QUEUE).toBeDefined();
  });
});
