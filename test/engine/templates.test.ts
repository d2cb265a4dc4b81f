import { describe, expect, it } from "vitest";
import { applyOverrides, renderChannel } from "../../src/engine/templates";
import type { ChannelStep } from "../../src/engine/steps";
import { sampleContext } from "./context";

const ctx = sampleContext();

const email = (template: Extract<ChannelStep, { type: "email" }>["template"], locales?: Record<string, Partial<typeof template>>) =>
  ({ id: "email-1", type: "email", template, ...(locales ? { locales } : {}) }) as const;

describe("renderChannel", () => {
  it("renders payload, subscriber, actor, vars and steps", () => {
    const result = renderChannel(
      email({
        subject: "{{ vars.BRAND }}: order {{ payload.orderId }} for {{ subscriber.firstName }}",
        text: "{{ actor.firstName }} shipped {{ payload.items.size }} items ({{ payload.items[0].sku }}); sms {{ steps.sms-1.status }}",
      }),
      ctx,
    );
    expect(result).toEqual({
      ok: true,
      channel: "email",
      locale: null,
      content: { subject: "Clarion: order A-1001 for Ada", text: "Grace shipped 2 items (SKU-1); sms sent" },
    });
  });

  it("renders missing variables as empty", () => {
    const result = renderChannel({ id: "s", type: "sms", template: { body: "Hi {{ payload.nope.deeper }}!" } }, ctx);
    expect(result).toEqual({ ok: true, channel: "sms", locale: null, content: { body: "Hi !" } });
  });

  it("escapes output in html but not in subject or text", () => {
    const result = renderChannel(
      email({ subject: "{{ payload.html }}", html: "<p>{{ payload.html }}</p>", text: "{{ payload.html }}" }),
      ctx,
    );
    expect(result.ok && result.content).toEqual({
      subject: "<b>bold</b> & co",
      html: "<p>&lt;b&gt;bold&lt;/b&gt; &amp; co</p>",
      text: "<b>bold</b> & co",
    });
  });

  it("lets | raw opt out of escaping in html", () => {
    const result = renderChannel(email({ subject: "x", html: "{{ payload.html | raw }}" }), ctx);
    expect(result.ok && result.content.html).toBe("<b>bold</b> & co");
  });

  it.each([
    ["an unclosed tag", "{% if payload.total > 1 %}big", /not closed/],
    ["an unknown filter", "{{ payload.orderId | shout }}", /undefined filter: shout/],
    ["an include", "{% include 'secrets' %}", /not supported: use {% render/],
    ["a huge range", "{% for i in (1..100000000) %}{{ i }}{% endfor %}", /limit exceeded/],
    [
      "nested loops over a large array",
      "{% for a in payload.big %}{% for b in payload.big %}{% for c in payload.big %}{% endfor %}{% endfor %}{% endfor %}",
      /limit exceeded/,
    ],
  ])("answers template_error for %s", (_name, subject, message) => {
    const big = Array.from({ length: 1_000 }, (_, i) => i);
    const result = renderChannel(email({ subject }), sampleContext({ payload: { big } }));
    expect(result).toEqual({ ok: false, code: "template_error", message: expect.stringMatching(message) });
  });

  it("answers template_error for an error in a localised variant only when that variant is picked", () => {
    const step = email({ subject: "Fine" }, { fr: { subject: "{{ oops" } });
    expect(renderChannel(step, ctx, "de").ok).toBe(true);
    expect(renderChannel(step, ctx, "fr").ok).toBe(false);
  });

  describe("locale selection", () => {
    const step = email({ subject: "Hello" }, { "de-CH": { subject: "Grüezi" }, de: { subject: "Hallo" }, "fr-CA": { subject: "Bonjour" } });
    it.each([
      ["de-CH", "Grüezi", "de-CH"],
      ["de-ch", "Grüezi", "de-CH"],
      ["de-AT", "Hallo", "de"],
      ["de", "Hallo", "de"],
      ["fr-FR", "Bonjour", "fr-CA"],
      ["it", "Hello", null],
      [null, "Hello", null],
    ])("picks for %s", (locale, subject, picked) => {
      const result = renderChannel(step, ctx, locale);
      expect(result.ok && { subject: result.content.subject, locale: result.locale }).toEqual({ subject, locale: picked });
    });
  });

  describe("a locale variant overrides only the fields it gives", () => {
    it.each<[string, ChannelStep, Record<string, unknown>]>([
      [
        "email (subject only)",
        email({ subject: "Hello", html: "<p>Body</p>", text: "Body", from: "a@acme.dev" }, { de: { subject: "Hallo" } }),
        { subject: "Hallo", html: "<p>Body</p>", text: "Body", from: "a@acme.dev" },
      ],
      [
        "email (from only)",
        email({ subject: "Hello", text: "Body" }, { de: { from: "de@acme.dev" } }),
        { subject: "Hello", text: "Body", from: "de@acme.dev" },
      ],
      [
        "push (title only)",
        {
          id: "p",
          type: "push",
          template: { title: "Hi", body: "Body", data: { a: "1" }, sound: "ping" },
          locales: { de: { title: "Hallo" } },
        },
        { title: "Hallo", body: "Body", data: { a: "1" }, sound: "ping" },
      ],
      [
        "chat (blocks only)",
        { id: "c", type: "chat", template: { text: "Hi", blocks: [{ type: "x" }] }, locales: { de: { blocks: [{ type: "y" }] } } },
        { text: "Hi", blocks: [{ type: "y" }] },
      ],
      ["sms (nothing)", { id: "s", type: "sms", template: { body: "Hi" }, locales: { de: {} } }, { body: "Hi" }],
    ])("%s", (_label, step, content) => {
      const result = renderChannel(step, ctx, "de-CH");
      expect(result).toEqual({ ok: true, channel: step.type, locale: "de", content });
    });
  });

  it("renders push data strings and a Liquid badge", () => {
    const result = renderChannel(
      {
        id: "push-1",
        type: "push",
        template: {
          title: "{{ vars.BRAND }}",
          body: "Order {{ payload.orderId }}",
          data: { orderId: "{{ payload.orderId }}", count: 3, deep: { list: ["{{ payload.status }}"] } },
          badge: "{{ payload.items.size }}",
        },
      },
      ctx,
    );
    expect(result.ok && result.content).toEqual({
      title: "Clarion",
      body: "Order A-1001",
      data: { orderId: "A-1001", count: 3, deep: { list: ["shipped"] } },
      badge: 2,
    });
  });

  it("fails a badge that does not render to a whole number", () => {
    const result = renderChannel({ id: "p", type: "push", template: { title: "t", body: "b", badge: "{{ payload.status }}" } }, ctx);
    expect(result).toEqual({ ok: false, code: "template_error", message: expect.stringContaining("badge") });
  });

  it("drops optional email fields that render blank", () => {
    const result = renderChannel(email({ subject: "s", from: "{{ vars.NO_SENDER }}" }), ctx);
    expect(result.ok && result.content).toEqual({ subject: "s" });
  });
});

describe("applyOverrides", () => {
  const content = { subject: "Rendered", text: "Body" };

  it("replaces known fields of the channel", () => {
    expect(applyOverrides("email", content, { email: { subject: "Overridden", from: "ops@example.com" } })).toEqual({
      subject: "Overridden",
      text: "Body",
      from: "ops@example.com",
    });
  });

  it("ignores unknown fields, wrong types and other channels", () => {
    const overrides = { email: { subject: 42, bcc: "x@example.com" }, sms: { body: "not for email" } };
    expect(applyOverrides("email", content, overrides)).toEqual(content);
  });

  it("checks push badge and data types", () => {
    const push = { title: "t", body: "b" };
    expect(applyOverrides("push", push, { push: { badge: 5, data: { a: 1 } } })).toEqual({ ...push, badge: 5, data: { a: 1 } });
    expect(applyOverrides("push", push, { push: { badge: -1, data: ["x"] } })).toEqual(push);
  });

  it("leaves content alone without overrides", () => {
    expect(applyOverrides("sms", { body: "b" }, undefined)).toEqual({ body: "b" });
  });
});
