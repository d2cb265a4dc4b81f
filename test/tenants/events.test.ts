// Tenants everywhere else: events carry the tenant, endpoints filter by it, erasure takes a
// subscriber's preferences inside tenants.
import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { eventRow, eventStatements } from "../../src/features/events/record";
import type { EventList } from "../../src/features/events/schemas";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { api } from "../request";
import { createEnvironment, createSandboxEnvironment, createWorkflow, fakeProviderScenario, unique } from "../factories";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { holdWebhooks } from "../webhook-queue";

describe("events of a tenant's messages", () => {
  it("carry the tenant in data", async () => {
    const { key } = await createSandboxEnvironment();
    const workflow = unique("wf").toLowerCase();
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", html: "h" } }] });
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    // Events are written only while an endpoint takes them.
    await api(key, "POST", "/v1/webhook-endpoints", { url: `${fakeProviderScenario().baseUrl}/x` });
    const tx = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "a@example.com" }, tenant: "acme" });
    await deliveredMessages(key, tx, 1);
    const plain = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "b@example.com" } });
    await deliveredMessages(key, plain, 1);
    const events = (await api<EventList>(key, "GET", "/v1/events?type=message.sent")).body.data;
    const byTx = new Map(events.map((e) => [e.data.transactionId, e.data.tenant]));
    expect(byTx.get(tx)).toBe("acme");
    expect(byTx.get(plain) ?? null).toBeNull();
  });
});

describe("webhook endpoints with `tenants`", () => {
  it("are sent only the events of the tenants they name", async () => {
    const { key, id } = await createEnvironment();
    const all = fakeProviderScenario();
    const acmeOnly = fakeProviderScenario();
    await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: `${all.baseUrl}/x` });
    const created = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", {
      url: `${acmeOnly.baseUrl}/x`,
      tenants: ["acme"],
    });
    expect(created.status).toBe(201);
    expect(created.body.tenants).toEqual(["acme"]);
    const data = (tenant: string | null) => ({
      messageId: "msg_x",
      transactionId: "tx",
      workflow: "wf",
      subscriberId: "s",
      stepId: "mail",
      channel: "email",
      provider: null,
      tenant,
      status: "sent",
      reason: null,
    });
    const acme = eventRow(id, "message.sent", data("acme"));
    const globex = eventRow(id, "message.sent", data("globex"));
    const none = eventRow(id, "message.sent", data(null));
    const db = createDb(env.DB);
    await db.batch([eventStatements(db, [acme, globex, none])[0]!]);
    const hooks = holdWebhooks();
    const batch = createMessageBatch("clarion-webhooks", [
      {
        id: "dispatch",
        timestamp: new Date(),
        attempts: 1,
        body: { type: "dispatch", environmentId: id, eventIds: [acme.id, globex.id, none.id] },
      },
    ]);
    await hooks.consume("clarion-webhooks", batch);
    await hooks.drain();
    expect((await all.captured()).length).toBe(3);
    const got = (await acmeOnly.captured()).map((r) => (JSON.parse(r.body) as { data: { tenant: string } }).data.tenant);
    expect(got).toEqual(["acme"]);
  });

  it("refuses a bad tenants list", async () => {
    const { key } = await createEnvironment();
    for (const tenants of [[], [""], "acme", Array.from({ length: 101 }, (_, i) => `t${i}`)]) {
      const res = await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/x", tenants });
      expect(res.status).toBe(422);
    }
  });
});

describe("erasing a subscriber", () => {
  it("removes their preferences inside tenants", async () => {
    const { key } = await createEnvironment();
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    await api(key, "POST", "/v1/subscribers", { subscriberId: "erased" });
    await api(key, "PUT", "/v1/subscribers/erased/preferences?tenant=acme", { channels: { sms: false } });
    expect((await api(key, "DELETE", "/v1/subscribers/erased")).status).toBeLessThan(300);
    await api(key, "POST", "/v1/subscribers", { subscriberId: "erased" });
    const prefs = await api<{ channels: { sms: boolean } }>(key, "GET", "/v1/subscribers/erased/preferences?tenant=acme");
    expect(prefs.body.channels.sms).toBe(true);
  });
});
