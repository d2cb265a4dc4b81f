import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FAVICON_SVG } from "../../src/contract/favicon";

const page = (path: string) => SELF.fetch(`http://clarion.test${path}`);

describe("GET /docs", () => {
  it("loads the reference's script from this origin, never a CDN", async () => {
    const body = await (await page("/docs")).text();
    const sources = [...body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual(["/docs/scalar-api-reference.js"]);
    expect(body).not.toMatch(/https?:\/\//);
  });

  it("pre-fills the ApiKey scheme with its prefix, so generated requests send `Authorization: ApiKey <key>`", async () => {
    const body = await (await page("/docs")).text();
    expect(body).toContain('"preferredSecurityScheme":"ApiKey"');
    expect(body).toContain('"ApiKey":{"value":"ApiKey YOUR_API_KEY"}');
  });

  it("sends a Content-Security-Policy with no third-party script origin and the inline script's nonce", async () => {
    const res = await page("/docs");
    const csp = res.headers.get("content-security-policy") ?? "";
    const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1]?.split(" ") ?? [];
    const nonce = /<script nonce="([^"]+)">/.exec(await res.text())?.[1];
    expect(nonce).toBeTruthy();
    expect(scriptSrc.sort()).toEqual([`'nonce-${nonce}'`, "'self'"].sort());
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it("gives every answer its own nonce", async () => {
    const nonceOf = async () => /'nonce-([^']+)'/.exec((await page("/docs")).headers.get("content-security-policy") ?? "")?.[1];
    expect(await nonceOf()).not.toBe(await nonceOf());
  });

  it.each([
    ["x-frame-options", "DENY"],
    ["x-content-type-options", "nosniff"],
    ["referrer-policy", "no-referrer"],
  ])("sends %s: %s", async (name, value) => {
    expect((await page("/docs")).headers.get(name)).toBe(value);
  });
});

describe("GET /docs, self-hosted and offline", () => {
  it("turns off Scalar's hosted services: the AI agent, MCP generation and the developer tools (Share, Deploy)", async () => {
    const body = await (await page("/docs")).text();
    expect(body).toContain('"agent":{"disabled":true}');
    expect(body).toContain('"mcp":{"disabled":true}');
    expect(body).toContain('"showDeveloperTools":"never"');
  });

  it("links the favicon the Worker serves", async () => {
    expect(await (await page("/docs")).text()).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg" />');
  });
});

describe("GET /openapi.json tags", () => {
  it("lists the tags in the order a user needs them: triggers, subscribers, workflows first, provider webhooks last", async () => {
    const doc = (await (await page("/openapi.json")).json()) as { tags: { name: string }[] };
    const names = doc.tags.map((t) => t.name);
    expect(names.slice(0, 3)).toEqual(["Triggers", "Subscribers", "Workflows"]);
    expect(names.at(-1)).toBe("Webhooks");
  });

  it("declares every tag an operation uses, so none lands outside the order", async () => {
    const doc = (await (await page("/openapi.json")).json()) as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const used = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
    expect([...used].filter((tag) => !doc.tags.some((t) => t.name === tag))).toEqual([]);
  });
});

describe("GET /favicon.svg", () => {
  it.each(["/favicon.svg", "/favicon.ico"])("%s answers Clarion's icon as SVG", async (path) => {
    const res = await page(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(await res.text()).toBe(FAVICON_SVG);
  });
});
