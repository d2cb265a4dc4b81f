import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { ledgerOf, tickLedger } from "../ledger";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { byStep, createWorkflow, eventually, messageDetail, settledMessages, trigger } from "./helpers";

const waits = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.waiting(environmentId, transactionId));

const BRAND = (name: string, primary = "#112233") => ({
  name,
  logoUrl: "https://acme.example/logo.png",
  colors: { primary, background: "#ffffff", text: "#111111", link: "#0000ee" },
  footer: "Acme Inc.",
});

const MAIL = {
  id: "mail",
  type: "email",
  template: {
    subject: '{{ "welcome.subject" | t: name: subscriber.firstName }}',
    html: '<h1 style="color: {{ brand.colors.primary }}">{{ brand.name }}</h1><p>{{ "cart.items" | t: count: payload.n }}</p><footer>{{ brand.footer }}</footer>',
  },
};

const EN = { welcome: { subject: "Welcome, {{ name }}" }, cart: { items: { one: "{{ count }} item", other: "{{ count }} items" } } };

async function setUp(steps: unknown[]) {
  const env = await createSandboxEnvironment();
  expect((await api(env.key, "PUT", "/v1/brand", BRAND("Acme"))).status).toBe(200);
  expect((await api(env.key, "PUT", "/v1/translations/en", { keys: EN })).status).toBe(200);
  expect((await api(env.key, "PUT", "/v1/translations/de", { keys: { welcome: { subject: "Willkommen, {{ name }}" } } })).status).toBe(200);
  const workflow = unique("wf").toLowerCase();
  await createWorkflow(env.key, { key: workflow, steps });
  return { ...env, workflow };
}

const contentOf = async (key: string, transactionId: string, count = 1, step = "mail") =>
  (await messageDetail(key, byStep(await settledMessages(key, transactionId, count), step).id)).content as {
    subject: string;
    html: string;
  };

describe("brand and translations in a sent email", () => {
  it("render the brand and each subscriber's texts, falling back from de-CH to de to the default locale", async () => {
    const { key, workflow } = await setUp([MAIL]);
    const swiss = await trigger(key, {
      workflow,
      to: { subscriberId: unique("s"), email: "a@example.ch", firstName: "Ada", locale: "de-CH" },
      payload: { n: 3 },
    });
    const content = await contentOf(key, swiss);
    expect(content.subject).toBe("Willkommen, Ada");
    expect(content.html).toBe('<h1 style="color: #112233">Acme</h1><p>3 items</p><footer>Acme Inc.</footer>');

    const english = await trigger(key, {
      workflow,
      to: { subscriberId: unique("s"), email: "b@example.com", firstName: "Bo" },
      payload: { n: 1 },
    });
    expect(await contentOf(key, english)).toMatchObject({ subject: "Welcome, Bo", html: expect.stringContaining("<p>1 item</p>") });
  });

  it("keep the brand and texts current when a delayed trigger was accepted, though both were edited meanwhile", async () => {
    const { id, key, workflow } = await setUp([{ id: "wait", type: "delay", for: "PT10S" }, MAIL]);
    const to = { subscriberId: unique("s"), email: "a@example.com", firstName: "Ada" };
    const transactionId = await trigger(key, { workflow, to, payload: { n: 2 } });
    await eventually(async () => (await waits(id, transactionId)).length === 1);

    expect((await api(key, "PUT", "/v1/brand", BRAND("Renamed", "#999999"))).status).toBe(200);
    const edited = { ...EN, welcome: { subject: "Hello there, {{ name }}" } };
    expect((await api(key, "PUT", "/v1/translations/en", { keys: edited })).status).toBe(200);
    await tickLedger(id, transactionId, Math.max(...(await waits(id, transactionId))));
    const pinned = await contentOf(key, transactionId);
    expect(pinned.subject).toBe("Welcome, Ada");
    expect(pinned.html).toContain('<h1 style="color: #112233">Acme</h1>');

    // A trigger accepted after the edits renders them.
    const later = await trigger(key, { workflow, to, payload: { n: 2 } });
    await eventually(async () => (await waits(id, later)).length === 1);
    await tickLedger(id, later, Math.max(...(await waits(id, later))));
    const current = await contentOf(key, later);
    expect(current.subject).toBe("Hello there, Ada");
    expect(current.html).toContain('<h1 style="color: #999999">Renamed</h1>');
  });

  it("translate inside a partial a layout renders: `t` in `{% render %}` uses the subscriber's locale", async () => {
    const { key } = await setUp([MAIL]);
    const [footer, frame, workflow] = [unique("foot"), unique("frame"), unique("wf")].map((k) => k.toLowerCase());
    const keys = { footer: { note: "You get this from {{ who }}" } };
    expect((await api(key, "PUT", "/v1/translations/en", { keys: { ...EN, ...keys } })).status).toBe(200);
    const de = { welcome: { subject: "Willkommen, {{ name }}" }, footer: { note: "Sie erhalten dies von {{ who }}" } };
    expect((await api(key, "PUT", "/v1/translations/de", { keys: de })).status).toBe(200);
    const partial = { key: footer, name: "Footer", type: "html", content: '<small>{{ "footer.note" | t: who: org }}</small>' };
    expect((await api(key, "POST", "/v1/partials", partial)).status).toBe(201);
    const html = `<main>{{ content }}{% render "${footer}", org: brand.name %}</main>`;
    expect((await api(key, "POST", "/v1/layouts", { key: frame, name: "Frame", html })).status).toBe(201);
    const step = { id: "mail", type: "email", layout: frame, template: { subject: "Hi", html: "<p>Body</p>" } };
    await createWorkflow(key, { key: workflow, steps: [step] });

    const german = await trigger(key, { workflow, to: { subscriberId: unique("s"), email: "a@example.de", locale: "de-DE" } });
    expect((await contentOf(key, german)).html).toContain("<main><p>Body</p><small>Sie erhalten dies von Acme</small></main>");
    const english = await trigger(key, { workflow, to: { subscriberId: unique("s"), email: "b@example.com" } });
    expect((await contentOf(key, english)).html).toContain("<small>You get this from Acme</small>");

    // The preview reads the brand and texts for what its layout and partials use, as delivery does.
    const preview = await api<{ steps: { content?: { html?: string } }[] }>(key, "POST", `/v1/workflows/${workflow}/preview`, {
      payload: {},
      subscriber: { locale: "de" },
    });
    expect(preview.body.steps[0]?.content?.html).toContain("<small>Sie erhalten dies von Acme</small>");
  });
});
