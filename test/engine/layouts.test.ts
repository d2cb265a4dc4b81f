import { describe, expect, it } from "vitest";
import { htmlToText } from "../../src/engine/layouts";
import { PartialSet } from "../../src/engine/partials";
import type { ChannelStep } from "../../src/engine/steps";
import { renderChannel } from "../../src/engine/templates";
import { sampleContext } from "./context";

const ctx = sampleContext({ payload: { name: "Ada", secret: "hidden" } });
const email = (template: Record<string, string>) => ({ id: "mail", type: "email", template }) as ChannelStep & { type: "email" };
const layout = (html: string, text: string | null = null) => ({ key: "frame", version: 1, html, text });
const partials = (list: Record<string, string>) =>
  new PartialSet(Object.entries(list).map(([key, content]) => ({ key, content, ref: `t/${key}/${content}` })));

describe("a layout", () => {
  it("wraps the step's HTML and text, seeing the step's variables", () => {
    const result = renderChannel(
      email({ subject: "Hi", html: "<p>Hello {{ payload.name }}</p>", text: "Hello {{ payload.name }}" }),
      ctx,
      null,
      {
        layout: layout("<main data-n='{{ payload.name }}'>{{ content }}</main>", "== {{ content }} =="),
        partials: PartialSet.EMPTY,
      },
    );
    expect(result.ok && result.content).toEqual({
      subject: "Hi",
      html: "<main data-n='Ada'><p>Hello Ada</p></main>",
      text: "== Hello Ada ==",
    });
  });

  it("makes the text part from the wrapped HTML when it has no text", () => {
    const result = renderChannel(email({ subject: "Hi", html: "<p>Hello</p>" }), ctx, null, {
      layout: layout('<h1>Acme</h1>{{ content }}<a href="https://x.test/u">Unsubscribe</a>'),
      partials: PartialSet.EMPTY,
    });
    expect(result.ok && result.content.text).toBe("Acme\n\nHello\n\nUnsubscribe (https://x.test/u)");
  });

  it("puts the step's HTML in unescaped, while the layout's own values are escaped", () => {
    const result = renderChannel(email({ subject: "Hi", html: "<b>bold</b>" }), sampleContext({ payload: { x: "<i>" } }), null, {
      layout: layout("{{ payload.x }}|{{ content }}"),
      partials: PartialSet.EMPTY,
    });
    expect(result.ok && result.content.html).toBe("&lt;i&gt;|<b>bold</b>");
  });

  it("leaves the email alone without a layout", () => {
    const result = renderChannel(email({ subject: "Hi", html: "<p>x</p>" }), ctx, null, { layout: null, partials: PartialSet.EMPTY });
    expect(result.ok && result.content).toEqual({ subject: "Hi", html: "<p>x</p>" });
  });
});

describe("{% render %}", () => {
  it("renders a partial with its arguments in scope and nothing else", () => {
    const set = partials({ footer: "[{{ cta }}|{{ payload.secret }}|{{ subscriber.subscriberId }}]" });
    const result = renderChannel(email({ subject: "s", html: '{% render "footer", cta: "Open" %}' }), ctx, null, {
      layout: null,
      partials: set,
    });
    expect(result.ok && result.content.html).toBe("[Open||]");
  });

  it("renders partials from partials", () => {
    const set = partials({ outer: '<{% render "inner", n: n %}>', inner: "{{ n }}" });
    const result = renderChannel(email({ subject: '{% render "outer", n: payload.name %}' }), ctx, null, { layout: null, partials: set });
    expect(result.ok && result.content.subject).toBe("<Ada>");
  });

  it("uses the set it is given: two versions of one key never share a parse", () => {
    const render = (content: string, ref: string) =>
      renderChannel(email({ subject: '{% render "p" %}' }), ctx, null, {
        layout: null,
        partials: new PartialSet([{ key: "p", content, ref }]),
      });
    const v1 = render("one", "e/p@1");
    const v2 = render("two", "e/p@2");
    expect([v1.ok && v1.content.subject, v2.ok && v2.content.subject]).toEqual(["one", "two"]);
  });

  it("answers template_error for an unknown partial, and reads no file system", () => {
    const result = renderChannel(email({ subject: '{% render "../../etc/passwd" %}' }), ctx);
    expect(result).toEqual({ ok: false, code: "template_error", message: expect.stringMatching(/passwd/) });
  });
});

describe("htmlToText", () => {
  it("keeps blocks, line breaks and links, drops styles", () => {
    expect(htmlToText("<style>p{}</style><p>A<br>B</p><ul><li>one</li></ul>&amp;")).toBe("A\nB\n\n- one\n\n&");
  });
});
