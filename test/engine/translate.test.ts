import { describe, expect, it } from "vitest";
import type { TemplateContext } from "../../src/engine/content";
import { renderChannel, templateIssues } from "../../src/engine/templates";
import {
  canonicalLocale,
  flattenKeys,
  localeChain,
  nestKeys,
  TRANSLATOR,
  type TranslationKeys,
  translationUses,
  translator,
} from "../../src/engine/translate";
import { sampleContext } from "./context";

const dictionaries = new Map<string, TranslationKeys>([
  [
    "en",
    {
      "welcome.subject": "Welcome, {{ name }}",
      "cart.items": { one: "{{ count }} item", other: "{{ count }} items" },
      "only.default": "Default text",
      "markup.warning": "<b>{{ name }}</b>",
    },
  ],
  ["de", { "welcome.subject": "Willkommen, {{ name }}", "only.language": "Nur Deutsch" }],
  ["de-CH", { "welcome.subject": "Grüezi, {{ name }}" }],
  ["fr", { "cart.items": { one: "{{ count }} article", many: "{{ count }} d'articles", other: "{{ count }} articles" } }],
  [
    "ar",
    {
      "cart.items": {
        zero: "zero:{{ count }}",
        one: "one:{{ count }}",
        two: "two:{{ count }}",
        few: "few:{{ count }}",
        many: "many:{{ count }}",
        other: "other:{{ count }}",
      },
    },
  ],
  ["pl", { "cart.items": { one: "one:{{ count }}", few: "few:{{ count }}", many: "many:{{ count }}", other: "other:{{ count }}" } }],
]);

const contextFor = (locale: string | null): TemplateContext => ({
  ...sampleContext(),
  [TRANSLATOR]: translator(dictionaries, localeChain(locale, "en")),
});

const sms = (body: string) => ({ id: "s", type: "sms", template: { body } }) as const;

function render(body: string, locale: string | null) {
  const result = renderChannel(sms(body), contextFor(locale));
  if (!result.ok) throw new Error(result.message);
  return result.content.body;
}

describe("the t filter", () => {
  it("interpolates keyword arguments, and only those", () => {
    expect(render('{{ "welcome.subject" | t: name: subscriber.firstName }}', "en")).toBe("Welcome, Ada");
    // The scope does not leak into a translation: `name` is not a template variable.
    expect(render('{{ "welcome.subject" | t }}', "en")).toBe("Welcome, ");
  });

  it.each([
    ["en", 1, "1 item"],
    ["en", 2, "2 items"],
    ["en", 0, "0 items"],
    ["fr", 0, "0 article"],
    ["fr", 1, "1 article"],
    ["fr", 2, "2 articles"],
    ["fr", 1000000, "1000000 d'articles"],
    ["ar", 0, "zero:0"],
    ["ar", 1, "one:1"],
    ["ar", 2, "two:2"],
    ["ar", 3, "few:3"],
    ["ar", 11, "many:11"],
    ["ar", 100, "other:100"],
    ["pl", 1, "one:1"],
    ["pl", 3, "few:3"],
    ["pl", 5, "many:5"],
    ["pl", 1.5, "other:1.5"],
  ])("picks the %s plural form for count %d", (locale, count, expected) => {
    expect(render(`{{ "cart.items" | t: count: ${count} }}`, locale)).toBe(expected);
  });

  it("falls back from the subscriber's locale to its language, then to the default locale", () => {
    const body = '{{ "welcome.subject" | t: name: "Ada" }}|{{ "only.language" | t }}|{{ "only.default" | t }}';
    expect(render(body, "de-CH")).toBe("Grüezi, Ada|Nur Deutsch|Default text");
    expect(render(body, "de-AT")).toBe("Willkommen, Ada|Nur Deutsch|Default text");
    expect(render(body, "ja")).toBe("Welcome, Ada|only.language|Default text");
    expect(render(body, null)).toBe("Welcome, Ada|only.language|Default text");
  });

  it("renders a key found nowhere, or with no translations at all, as itself", () => {
    expect(render('{{ "no.such.key" | t }}', "en")).toBe("no.such.key");
    const bare = renderChannel(sms('{{ "welcome.subject" | t }}'), sampleContext());
    expect(bare).toMatchObject({ ok: true, content: { body: "welcome.subject" } });
  });

  it("escapes a translation in an HTML body, its markup and its arguments alike", () => {
    const result = renderChannel(
      { id: "e", type: "email", template: { subject: "s", html: '<p>{{ "markup.warning" | t: name: payload.html }}</p>' } },
      contextFor("en"),
    );
    expect(result).toMatchObject({ ok: true, content: { html: "<p>&lt;b&gt;&lt;b&gt;bold&lt;/b&gt; &amp; co&lt;/b&gt;</p>" } });
  });

  it("is a known filter when templates are parsed at save", () => {
    expect(templateIssues([sms('{{ "a.b" | t: count: 2 }}')])).toEqual([]);
  });
});

describe("translation keys", () => {
  it("flattens nested keys, keeping plural forms as values, and nests them back", () => {
    const nested = { welcome: { subject: "Hi", body: { intro: "Hello" } }, cart: { items: { one: "1", other: "n" } } };
    const { keys, issues } = flattenKeys(nested);
    expect(issues).toEqual([]);
    expect(keys).toEqual({ "welcome.subject": "Hi", "welcome.body.intro": "Hello", "cart.items": { one: "1", other: "n" } });
    expect(nestKeys(keys)).toEqual(nested);
  });

  it("reports values that are neither texts, plural forms nor levels, with their path", () => {
    expect(flattenKeys({ a: { b: 3 }, "c d": "x", e: [] }).issues.map((i) => i.path.join("."))).toEqual(["a.b", "c d", "e"]);
  });

  it("canonicalises BCP 47 locales and refuses words that only look like one", () => {
    expect(canonicalLocale("de-ch")).toBe("de-CH");
    expect(canonicalLocale("pt-br")).toBe("pt-BR");
    expect(canonicalLocale("zh-Hant-TW")).toBe("zh-Hant-TW");
    for (const bad of ["status", "settings", "en_US", "x", "", "not a locale", "e".repeat(40)]) expect(canonicalLocale(bad)).toBeNull();
  });

  it("finds the literal keys a workflow's templates pass to t, with their field paths", () => {
    const uses = translationUses([
      {
        id: "mail",
        type: "email",
        template: { subject: '{{ "welcome.subject" | t: name: x }}', text: "{{ 'cart.items' | t: count: 2 }} {{ x | truncate: 3 }}" },
        locales: { de: { subject: '{{ "de.only" | t }}' } },
      },
    ]);
    expect(uses).toEqual([
      { path: ["steps", 0, "template", "subject"], key: "welcome.subject" },
      { path: ["steps", 0, "template", "text"], key: "cart.items" },
      { path: ["steps", 0, "locales", "de", "subject"], key: "de.only" },
    ]);
  });
});
