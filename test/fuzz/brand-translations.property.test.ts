// Bad input over the brand and translation routes: random JSON, wrong types on the documented
// fields, plural forms and nesting of every shape, odd locales. Never a 5xx; every error a problem.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createSandboxEnvironment } from "../factories";
import { api } from "../request";

let key = "";
beforeAll(async () => {
  ({ key } = await createSandboxEnvironment());
});

const edge = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    "",
    "#12345",
    "#zzzzzz",
    "http://x",
    "https://x.example/a.png",
    "javascript:alert(1)",
    "{{",
    "{% if %}",
    "💥",
    "\u0000",
  ),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => "x".repeat(n)),
);
const colors = fc.dictionary(fc.constantFrom("primary", "background", "text", "link", "other"), edge);
const brand = fc.record(
  {
    name: edge,
    logoUrl: edge,
    colors: fc.oneof(colors, edge),
    footer: edge,
    address: edge,
    socialLinks: fc.oneof(fc.array(fc.record({ name: edge, url: edge })), edge),
  },
  { requiredKeys: [] },
);
const plural = fc.dictionary(fc.constantFrom("zero", "one", "two", "few", "many", "other", "lots"), edge);
const keys = fc.letrec((tie) => ({
  node: fc.dictionary(
    fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("a.b", "a", ".", "a..b", "other")),
    fc.oneof(edge, plural, tie("node")),
    {
      maxKeys: 6,
    },
  ),
})).node;
const locale = fc.oneof(
  fc.constantFrom("en", "de-CH", "pt-br", "status", "settings", "x", "en_US", "%20", "zh-Hant-TW", "a".repeat(40)),
  fc.string({ maxLength: 12 }),
);

type Case = { method: "PUT" | "GET" | "DELETE" | "POST"; path: string; body?: unknown };
const cases: fc.Arbitrary<Case> = fc.oneof(
  brand.map((body) => ({ method: "PUT" as const, path: "/v1/brand", body })),
  edge.map((body) => ({ method: "PUT" as const, path: "/v1/brand", body })),
  fc
    .tuple(locale, fc.oneof(keys, edge))
    .map(([l, k]) => ({ method: "PUT" as const, path: `/v1/translations/${encodeURIComponent(l)}`, body: { keys: k } })),
  fc.tuple(locale, edge).map(([l, body]) => ({ method: "PUT" as const, path: `/v1/translations/${encodeURIComponent(l)}`, body })),
  fc.oneof(locale, edge).map((defaultLocale) => ({ method: "PUT" as const, path: "/v1/translations/settings", body: { defaultLocale } })),
  edge.map((version) => ({ method: "POST" as const, path: "/v1/brand/revert", body: { version } })),
  fc.tuple(locale, fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([l, from, to]) => ({
    method: "GET" as const,
    path: `/v1/translations/${encodeURIComponent(l)}/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
  })),
  fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([from, to]) => ({
    method: "GET" as const,
    path: `/v1/brand/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
  })),
  locale.map((l) => ({ method: "DELETE" as const, path: `/v1/translations/${encodeURIComponent(l)}` })),
);

describe("the brand and translation routes under bad input", () => {
  it("never answer a 5xx, and every error is a problem document", async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ method, path, body }) => {
        const res = await api(key, method, path, body);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
