import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

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
