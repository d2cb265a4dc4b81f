// A tenant on a trigger, end to end: the accept path's check, the inline upsert, templates and the
// brand merged field by field, the message's tenant and context, the filters, and the hosted page.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MessageList, MessageStats } from "../../src/features/messages/schemas";
import type { Tenant } from "../../src/features/tenants/schemas";
import type { Problem } from "../../src/lib/errors";
import { api } from "../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { byStep, messageDetail } from "../e2e/helpers";
import { deliveredMessages, postDelivered, triggerDelivered } from "../held-triggers";

const ENV_BRAND = {
  name: "Platform",
  logoUrl: "https://platform.example/logo.png",
  colors: { primary: "#112233", background: "#ffffff", text: "#111111", link: "#0000ee" },
  footer: "Platform Ltd.",
};

const MAIL = {
  id: "mail",
  type: "email",
  template: {
    subject: "Hi from {{ brand.name }}",
    html: '<h1 style="color: {{ brand.colors.primary }}">{{ brand.name }}</h1><p>{{ tenant.id }}|{{ tenant.name }}|{{ tenant.data.plan }}</p><footer>{{ brand.footer }}|{{ brand.colors.link }}</footer><a href="{{ preferences_url }}">prefs</a>',
  },
};

async function setUp() {
  const env = await createSandboxEnvironment();
  expect((await api(env.key, "PUT", "/v1/brand", ENV_BRAND)).status).toBe(200);
  const workflow = unique("wf").toLowerCase();
  await createWorkflow(env.key, { key: workflow, steps: [MAIL] });
  await api(env.key, "POST", "/v1/tenants", {
    id: "acme",
    name: "Acme Inc.",
    data: { plan: "pro" },
    brand: { name: "Acme", colors: { primary: "#b91c1c" } },
  });
  return { ...env, workflow };
}

/** A delivered trigger's one email, read once: its message detail and rendered html. */
const html = async (key: string, transactionId: string) => {
  const [message] = await deliveredMessages(key, transactionId, 1);
  const detail = await messageDetail(key, byStep([message!], "mail").id);
  return { message: detail, html: (detail.content as { html: string }).html };
};

describe("a trigger for a tenant", () => {
  it("renders the tenant and its brand over the environment's, field by field, and records the tenant on the message", async () => {
    const { key, workflow } = await setUp();
    const tx = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "a@example.com" }, tenant: "acme" });
    const { message, html: body } = await html(key, tx);
    expect(body).toContain('<h1 style="color: #b91c1c">Acme</h1>');
    expect(body).toContain("<p>acme|Acme Inc.|pro</p>");
    // Fields the tenant leaves out are the environment's.
    expect(body).toContain("<footer>Platform Ltd.|#0000ee</footer>");
    expect(message.tenant).toBe("acme");

    // Without a tenant: the environment's brand, no tenant.
    const plain = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "b@example.com" } });
    const other = await html(key, plain);
    expect(other.html).toContain('<h1 style="color: #112233">Platform</h1>');
    expect(other.html).toContain("<p>||</p>");
    expect(other.message.tenant).toBeNull();

    const listed = await api<MessageList>(key, "GET", "/v1/messages?tenant=acme");
    expect(listed.body.data.map((m) => m.transactionId)).toEqual([tx]);
    const none = await api<MessageList>(key, "GET", "/v1/messages?tenant=globex");
    expect(none.body.data).toEqual([]);
    const stats = await api<MessageStats>(key, "GET", "/v1/messages/stats?tenant=acme");
    expect(stats.status).toBe(200);
    expect(stats.body.data.reduce((n, r) => n + r.total, 0)).toBe(1);
  });

  it("shows the tenant's brand on the hosted preference page its email links to, and changes the preferences inside the tenant", async () => {
    const { key, workflow } = await setUp();
    const subscriberId = unique("s");
    const tx = await triggerDelivered(key, { workflow, to: { subscriberId, email: "a@example.com" }, tenant: "acme" });
    const { html: body } = await html(key, tx);
    const url = /href="([^"]+\/p\/[^"]+)"/.exec(body)?.[1];
    expect(url).toBeDefined();
    const path = new URL(url!).pathname;
    const page = await SELF.fetch(`https://clarion.test${path}`);
    const text = await page.text();
    expect(page.status).toBe(200);
    expect(text).toContain("Acme");
    expect(text).toContain("#b91c1c");
    expect(text).not.toContain("Platform");

    // Saving the page turns email off inside the tenant only.
    const nonce = /name="nonce" value="([^"]+)"/.exec(text)?.[1] ?? "";
    const form = new URLSearchParams({ nonce });
    for (const ch of ["sms", "push", "chat", "in_app"]) form.set(`channel:${ch}`, "on");
    const saved = await SELF.fetch(`https://clarion.test${path}`, { method: "POST", body: form });
    expect(saved.status).toBe(200);
    const scoped = await api<{ channels: { email: boolean } }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences?tenant=acme`);
    expect(scoped.body.channels.email).toBe(false);
    const own = await api<{ channels: { email: boolean } }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(own.body.channels.email).toBe(true);
  });

  it("answers 404 tenant_not_found for an unknown id, per event in a bulk request", async () => {
    const { key, workflow } = await setUp();
    const res = await api(key, "POST", "/v1/trigger", { workflow, to: "someone", tenant: "nobody" });
    expect(res.status).toBe(404);
    expect((res.body as unknown as Problem).code).toBe("tenant_not_found");
    const bulk = await api<{ results: { status: string; error?: { code: string } }[] }>(key, "POST", "/v1/trigger/bulk", {
      events: [
        { workflow, to: "someone", tenant: "acme" },
        { workflow, to: "someone", tenant: "nobody" },
      ],
    });
    expect(bulk.body.results.map((r) => r.error?.code ?? r.status)).toEqual(["accepted", "tenant_not_found"]);
    const broadcast = await api(key, "POST", "/v1/trigger/broadcast", { workflow, tenant: "nobody" });
    expect((broadcast.body as unknown as Problem).code).toBe("tenant_not_found");
  });

  it("creates or updates a tenant given inline, and keeps other context keys on the message", async () => {
    const { key, workflow } = await setUp();
    const tx = await triggerDelivered(key, {
      workflow,
      to: { subscriberId: unique("s"), email: "a@example.com" },
      tenant: { id: "newco", name: "NewCo", data: { plan: "free" } },
      context: { region: "eu" },
    });
    const { message, html: body } = await html(key, tx);
    expect(body).toContain("<p>newco|NewCo|free</p>");
    expect(message.context).toEqual({ region: "eu" });
    const detail = await api<{ tenant: string | null; context: Record<string, string> | null }>(key, "GET", `/v1/trigger/${tx}`);
    expect(detail.body).toMatchObject({ tenant: "newco", context: { region: "eu" } });
    expect((await api<Tenant>(key, "GET", "/v1/tenants/newco")).body).toMatchObject({ name: "NewCo", data: { plan: "free" } });
    const byContext = await api<MessageList>(key, "GET", "/v1/messages?context=region:eu");
    expect(byContext.body.data.map((m) => m.transactionId)).toEqual([tx]);
    expect((await api<MessageList>(key, "GET", "/v1/messages?context=region:us")).body.data).toEqual([]);
  });

  it("refuses more than 5 context keys and a tenant that disagrees with context.tenant", async () => {
    const { key, workflow } = await setUp();
    const many = await api(key, "POST", "/v1/trigger", { workflow, to: "x", context: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" } });
    expect(many.status).toBe(422);
    const clash = await api(key, "POST", "/v1/trigger", { workflow, to: "x", tenant: "acme", context: { tenant: "globex" } });
    expect(clash.status).toBe(422);
  });

  it("maps Novu's context.tenant and legacy tenant onto the trigger's tenant", async () => {
    const { key, workflow } = await setUp();
    const viaContext = await postDelivered<{ data: { transactionId: string } }>(key, "/novu/v1/events/trigger", {
      name: workflow,
      to: { subscriberId: unique("s"), email: "a@example.com" },
      context: { tenant: "acme", team: { id: "blue" } },
    });
    expect(viaContext.status).toBe(201);
    const first = await html(key, viaContext.body.data.transactionId);
    expect(first.message.tenant).toBe("acme");
    expect(first.message.context).toEqual({ team: "blue" });
    const legacy = await postDelivered<{ data: { transactionId: string } }>(key, "/novu/v1/events/trigger", {
      name: workflow,
      to: { subscriberId: unique("s"), email: "b@example.com" },
      tenant: { identifier: "legacy-co", name: "Legacy Co" },
    });
    expect(legacy.status).toBe(201);
    expect((await html(key, legacy.body.data.transactionId)).html).toContain("<p>legacy-co|Legacy Co|</p>");
    const unknown = await api(key, "POST", "/novu/v1/events/trigger", { name: workflow, to: "x", context: { tenant: "nobody" } });
    expect(unknown.status).toBe(404);
    // The legacy tenant was upserted while the trigger was delivered, which is done by now.
    expect((await api(key, "GET", "/v1/tenants/legacy-co")).status).toBe(200);
  });
});
