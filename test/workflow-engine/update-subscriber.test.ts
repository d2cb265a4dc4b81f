// update_subscriber steps end to end: rendered values written with the upsert POST /sub runs (a
// timeline entry, subscriber.updated), `data` merged key by key, later steps rendering the new
// values, an invalid value failing the step while the run goes on, and never an address.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import type { EventList } from "../../src/features/events/schemas";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import type { Subscriber } from "../../src/features/subscribers/schemas";
import { Webhook } from "standardwebhooks";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { api } from "../request";
import { holdWebhooks } from "../webhook-queue";
import { createSandboxEnvironment, createWorkflow, fakeProviderScenario, unique } from "../factories";
import { deliveredMessages, postHeld, triggerDelivered } from "../held-triggers";
import { deliverHeldJobs, ledgerOf } from "../ledger";

const mail = (id: string, subject = id) => ({ id, type: "email", template: { subject, text: `Hello from ${id}` } });
const update = (set: Record<string, unknown>) => ({ id: "profile", type: "update_subscriber", set });
const NEW_VALUES = "{{ subscriber.firstName }} {{ subscriber.lastName }} / {{ subscriber.data.plan }} / {{ subscriber.locale }}";

async function setUp(steps: unknown[]) {
  const env = await createSandboxEnvironment();
  const workflow = unique("us").toLowerCase();
  await createWorkflow(env.key, { key: workflow, steps });
  const subscriberId = unique("s");
  const created = await api(env.key, "POST", "/sub", {
    subscriberId,
    email: "ada@example.com",
    phone: "+41791234567",
    firstName: "Ada",
    locale: "en",
    data: { plan: "free", keep: 1 },
  });
  expect(created.status).toBe(201);
  return { ...env, workflow, subscriberId };
}

const profile = async (key: string, subscriberId: string) => (await api<Subscriber>(key, "GET", `/v1/subscribers/${subscriberId}`)).body;
const timeline = async (key: string, subscriberId: string) =>
  (await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`)).body.data.map((e) => e.type);
const updatedEvents = async (key: string) =>
  (await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated")).body.data.map((e) => e.data);

const recorded = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_l: TriggerLedger, state) =>
    state.storage.sql
      .exec<{ outcome: string }>("SELECT outcome FROM run_steps WHERE tx = ? AND step_id = 'profile'", transactionId)
      .toArray()
      .map((r) => JSON.parse(r.outcome) as Record<string, unknown>),
  );

describe("update_subscriber steps", () => {
  it("writes rendered names, locale, timezone and data merged key by key; a later step renders the new values", async () => {
    const { id, key, workflow, subscriberId } = await setUp([
      mail("before", NEW_VALUES),
      update({
        firstName: "{{ payload.first }}",
        lastName: "Lovelace",
        locale: "{{ payload.locale }}",
        timezone: "Europe/Zurich",
        data: { plan: "{{ payload.plan }}", seen: { at: "{{ payload.day }}" }, count: 2 },
      }),
      mail("after", NEW_VALUES),
    ]);
    const tx = await triggerDelivered(key, {
      workflow,
      to: subscriberId,
      payload: { first: "Augusta", locale: "de-CH", plan: "pro", day: "mon" },
    });

    const messages = await deliveredMessages(key, tx, 2);
    const subject = (stepId: string) => messages.find((m) => m.stepId === stepId)?.subject;
    expect(subject("before")).toBe("Ada  / free / en");
    expect(subject("after")).toBe("Augusta Lovelace / pro / de-CH");
    expect(await profile(key, subscriberId)).toMatchObject({
      firstName: "Augusta",
      lastName: "Lovelace",
      locale: "de-CH",
      timezone: "Europe/Zurich",
      data: { plan: "pro", keep: 1, seen: { at: "mon" }, count: 2 },
      email: "ada@example.com",
      phone: "+41791234567",
    });
    expect(await recorded(id, tx)).toEqual([
      { status: "ran", detail: { fields: ["locale", "timezone", "firstName", "lastName", "data"] } },
    ]);
  });

  it("translates later steps' texts (`t`) in the new locale", async () => {
    const { key, subscriberId } = await setUp([mail("unused")]);
    expect((await api(key, "PUT", "/v1/translations/en", { keys: { greet: "Hello" } })).status).toBe(200);
    expect((await api(key, "PUT", "/v1/translations/de-CH", { keys: { greet: "Grüezi" } })).status).toBe(200);
    const workflow = unique("us").toLowerCase();
    await createWorkflow(key, { key: workflow, steps: [update({ locale: "de-CH" }), mail("after", '{{ "greet" | t }}')] });
    const tx = await triggerDelivered(key, { workflow, to: subscriberId });
    expect((await deliveredMessages(key, tx, 1))[0]!.subject).toBe("Grüezi");
  });

  it("puts the change on the subscriber's timeline and emits subscriber.updated to webhook endpoints, as POST /sub does", async () => {
    const { id, key, workflow, subscriberId } = await setUp([update({ data: { plan: "{{ payload.plan }}" } })]);
    const receiver = fakeProviderScenario();
    const endpoint = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", {
      url: `${receiver.baseUrl}/e`,
      events: ["subscriber.updated"],
    });
    const hooks = holdWebhooks();
    expect(await timeline(key, subscriberId)).toEqual(["created"]);
    const { accepted } = await postHeld(key, "/v1/trigger", { workflow, to: subscriberId, payload: { plan: "pro" } });
    await deliverHeldJobs(id, accepted[0]!.transactionId, hooks.env);
    expect(await timeline(key, subscriberId)).toEqual(["updated", "created"]);
    expect(await updatedEvents(key)).toEqual([{ subscriberId }]);
    await hooks.drain();
    const received = (await receiver.captured()).map(
      (r) => new Webhook(endpoint.body.secret).verify(r.body, r.headers) as { type: string; data: unknown },
    );
    expect(received.map((r) => [r.type, r.data])).toEqual([["subscriber.updated", { subscriberId }]]);
  });

  it("writes once: a redelivered job finds the outcome recorded and writes nothing again", async () => {
    const { id, key, workflow, subscriberId } = await setUp([
      update({ lastName: "Lovelace" }),
      { id: "later", type: "delay", for: "PT1H" },
    ]);
    const { res, accepted } = await postHeld(key, "/v1/trigger", { workflow, to: subscriberId });
    expect(res.status).toBe(202);
    const tx = accepted[0]!.transactionId;
    const job = await runInDurableObject(
      ledgerOf(id, tx),
      (_l: TriggerLedger, state) => state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ? LIMIT 1", tx).one().job,
    );
    await deliverHeldJobs(id, tx);
    await runInDurableObject(ledgerOf(id, tx), (_l: TriggerLedger, state) => {
      state.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", tx, job);
    });
    await deliverHeldJobs(id, tx);
    expect(await timeline(key, subscriberId)).toEqual(["updated", "created"]);
    expect(await updatedEvents(key)).toHaveLength(1);
  });

  it.each([
    ["locale", { locale: "{{ payload.value }}" }, "set.locale"],
    ["timezone", { timezone: "{{ payload.value }}" }, "set.timezone"],
  ])("fails the step when the rendered %s is not valid, writes nothing, and the run goes on", async (_field, set, path) => {
    const { id, key, workflow, subscriberId } = await setUp([update({ ...set, firstName: "Changed" }), mail("after", NEW_VALUES)]);
    const tx = await triggerDelivered(key, { workflow, to: subscriberId, payload: { value: "not a zone or locale!" } });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message!.subject).toBe("Ada  / free / en");
    const [outcome] = await recorded(id, tx);
    expect(outcome).toMatchObject({ status: "failed", reason: "invalid_value", detail: { errors: [{ path }] } });
    expect((outcome!.detail as { message: string }).message).toContain(path);
    expect((await profile(key, subscriberId)).firstName).toBe("Ada");
    expect(await timeline(key, subscriberId)).toEqual(["created"]);
  });

  it("leaves a field that renders blank as it is", async () => {
    const { key, workflow, subscriberId } = await setUp([update({ firstName: "{{ payload.missing }}", lastName: "Lovelace" })]);
    await triggerDelivered(key, { workflow, to: subscriberId });
    expect(await profile(key, subscriberId)).toMatchObject({ firstName: "Ada", lastName: "Lovelace", locale: "en" });
  });

  it.each([
    ["email", { email: "eve@example.com" }],
    ["phone", { phone: "+41790000000" }],
    ["channels", { channels: { push: [] } }],
    ["avatar (not a field the step sets)", { avatar: "https://example.com/a.png" }],
  ])("refuses at save a step that would set %s", async (_name, set) => {
    const env = await createSandboxEnvironment();
    const res = await api(env.key, "POST", "/v1/workflows", { key: unique("us").toLowerCase(), name: "x", steps: [update(set)] });
    expect(res.status).toBe(422);
  });
});
