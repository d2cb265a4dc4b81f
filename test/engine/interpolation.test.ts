// Templates of text and plain outputs are rendered without liquidjs (src/engine/interpolation.ts):
// wherever it answers, it answers what liquidjs does with the engine's options, and it leaves to
// liquidjs what it cannot read plainly.
import { Liquid } from "liquidjs";
import { describe, expect, it } from "vitest";
import { interpolate } from "../../src/engine/interpolation";
import { renderText } from "../../src/engine/templates";

const OPTIONS = { strictVariables: false, strictFilters: true, ownPropertyOnly: true } as const;
/** The engine's `memoryLimit` (src/engine/templates.ts). */
const LIMIT = 1_000_000;
const liquid = { text: new Liquid(OPTIONS), html: new Liquid({ ...OPTIONS, outputEscape: "escape" }) };

class Person {
  name = "class";
}
const inherited = Object.create({ name: "inherited" }) as Record<string, unknown>;

const scope: Record<string, unknown> = {
  subscriber: { subscriberId: "ada", firstName: "Ada", email: "ada@example.com", data: { plan: "pro", seats: 3, trial: false } },
  payload: {
    title: `<b>"Tom" & 'Jerry'</b>`,
    count: 0,
    ratio: 0.1 + 0.2,
    big: 1e21,
    negative: -5,
    none: null,
    list: ["a", "b"],
    nested: { deeper: { value: "deep" } },
    text: "abc",
    size: 7,
    first: "f",
    object: { a: 1 },
    brace: "{{ not rendered }}",
  },
  vars: { company: "Acme" },
  person: new Person(),
  inherited,
  unsubscribe_url: "",
};

const TEMPLATES = [
  "Hello {{ subscriber.subscriberId }}",
  "{{subscriber.firstName}}!",
  "Hi {{ subscriber.firstName }} from {{ vars.company }} ({{ subscriber.data.plan }}, {{ subscriber.data.seats }} seats, trial {{ subscriber.data.trial }})",
  "{{ payload.title }}",
  "{{ payload.count }}/{{ payload.ratio }}/{{ payload.big }}/{{ payload.negative }}",
  "[{{ payload.none }}][{{ payload.missing }}][{{ payload.none.deeper }}]",
  "{{ payload.nested.deeper.value }}",
  "{{ payload.brace }}",
  "{{ unsubscribe_url }}",
  "text }} with stray braces {",
  // Left to liquidjs: an array, an object, a string's property, size/first/last, a class, an
  // inherited property, a name the scope lacks, a literal, a filter, a tag, whitespace control, brackets.
  "{{ missing.anything }}",
  "{{ payload.list }}",
  "{{ payload.object }}",
  "{{ payload.text.length }}",
  "{{ payload.list.size }} {{ payload.size }} {{ payload.first }} {{ payload.list.first }}",
  "{{ person.name }}",
  "{{ inherited.name }}",
  "{{ nil }}{{ true }}{{ empty }}",
  "{{ subscriber.firstName | upcase }}",
  "{% if payload.count %}x{% endif %}",
  "{{- subscriber.firstName -}}",
  '{{ payload["title"] }}',
  "{{ payload.list[0] }}",
];

describe("interpolation without liquidjs", () => {
  for (const mode of ["text", "html"] as const)
    it(`renders what liquidjs renders (${mode}), and leaves the rest to it`, () => {
      const answered: string[] = [];
      for (const source of TEMPLATES) {
        const ours = interpolate(source, scope, mode === "html", LIMIT);
        const theirs = liquid[mode].parseAndRenderSync(source, scope);
        if (ours !== undefined) {
          expect(ours, source).toBe(theirs);
          answered.push(source);
        }
      }
      // The first ten are plain; the rest are not.
      expect(answered).toEqual(TEMPLATES.slice(0, 10));
    });

  it("gives the engine's render the same text either way", () => {
    for (const source of TEMPLATES.slice(0, 10)) {
      const rendered = renderText(source, scope as never);
      expect(rendered).toEqual({ ok: true, text: liquid.text.parseAndRenderSync(source, scope) });
    }
  });

  it("leaves to liquidjs an HTML render past the memory limit, which liquidjs refuses", () => {
    const long = { payload: { text: "x".repeat(40) } };
    const source = "<p>{{ payload.text }}</p>";
    const small = new Liquid({ ...OPTIONS, outputEscape: "escape", memoryLimit: 30 });
    expect(() => small.parseAndRenderSync(source, long)).toThrow(/memory/i);
    expect(interpolate(source, long, true, 30)).toBeUndefined();
    // Text outputs are not charged; within the limit, HTML renders.
    expect(interpolate(source, long, false, 30)).toBe(`<p>${"x".repeat(40)}</p>`);
    expect(interpolate(source, long, true, 50)).toBe(
      new Liquid({ ...OPTIONS, outputEscape: "escape", memoryLimit: 50 }).parseAndRenderSync(source, long),
    );
  });

  it("agrees with liquidjs on generated templates and values", () => {
    const values: unknown[] = ["x", "<&>'\"", "", 0, -1.5, 2 ** 53, true, false, null, undefined];
    const names = ["a", "b", "c_d", "size1"];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 500; i++) {
      const data: Record<string, unknown> = {};
      for (const name of names)
        data[name] = next(4) === 0 ? { [names[next(4)]!]: values[next(values.length)] } : values[next(values.length)];
      const s = { payload: data };
      const path = ["payload", names[next(4)]!, ...(next(3) === 0 ? [names[next(4)]!] : [])].join(".");
      const source = `${next(2) ? "pre " : ""}{{ ${path} }}${next(2) ? " post" : ""}`;
      for (const html of [false, true]) {
        const ours = interpolate(source, s, html, LIMIT);
        if (ours !== undefined)
          expect(ours, `${source} ${JSON.stringify(data)}`).toBe(liquid[html ? "html" : "text"].parseAndRenderSync(source, s));
      }
    }
  });
});
