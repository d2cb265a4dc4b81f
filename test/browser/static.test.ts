import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, launch, SCREENSHOTS } from "./browser";
import { join } from "node:path";
import { inject } from "vitest";

// The Worker's own pages and static files: security headers, and /docs working offline.
const base = inject("base");
let browser: Browser | undefined;

beforeAll(async () => {
  if (CHROMIUM) browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the API reference and the static files", () => {
  it.each(["/docs", "/dashboard/", "/docs/scalar-api-reference.js"])("%s carries the security headers", async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(/script-src ([^;]+)/.exec(csp)?.[1]).toMatch(/^'self'( 'nonce-[^']+')?$/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect([res.headers.get("x-frame-options"), res.headers.get("x-content-type-options"), res.headers.get("referrer-policy")]).toEqual([
      "DENY",
      "nosniff",
      "no-referrer",
    ]);
  });

  it("caches the dashboard's hashed bundles for a year and revalidates index.html", async () => {
    const index = await fetch(`${base}/dashboard/`);
    expect(index.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const bundles = [...(await index.text()).matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(bundles.length).toBeGreaterThan(0);
    for (const bundle of bundles) {
      const res = await fetch(`${base}${bundle}`);
      expect([res.status, res.headers.get("cache-control")]).toEqual([200, "public, max-age=31536000, immutable"]);
    }
  });

  it("renders /docs from this origin alone, with curl examples that send `Authorization: ApiKey`", async () => {
    const docs = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    const elsewhere: string[] = [];
    const refused: string[] = [];
    // No network beyond this Worker: anything else is recorded and aborted.
    await docs.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(base) || url.startsWith("data:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    docs.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await docs.goto(`${base}/docs`);
    // Triggers is the first tag and opens with the page: go to its first operation.
    await docs.getByText("Trigger a workflow", { exact: false }).first().click({ timeout: 30_000 });
    await docs.getByText("Authorization: ApiKey YOUR_API_KEY", { exact: false }).first().waitFor();
    // Generated requests go to this origin, so a copied curl runs as it is (Scalar quotes the
    // address only when the shell needs it).
    const curl = new RegExp(`curl '?${base.replaceAll(".", "\\.")}/v1/`);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, without the page's style sheets
    await expect.poll(() => docs.evaluate(() => document.body.innerText)).toMatch(curl);
    await docs.screenshot({ path: join(SCREENSHOTS, "docs.png") });
    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await docs.close();
  });

  it("shows /docs without Scalar's hosted services, its tags in the order a user needs them, with Clarion's icon", async () => {
    const docs = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    await docs.goto(`${base}/docs`);
    await docs.getByText("Webhooks", { exact: true }).first().waitFor({ timeout: 30_000 });
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, without the page's style sheets
    const text = await docs.evaluate(() => document.body.innerText);
    // 127.0.0.1 is where Scalar shows its developer tools unless told not to.
    for (const control of ["Ask AI", "Generate MCP", "Developer Tools", "Deploy", "Share"]) expect(text).not.toContain(control);
    const at = (tag: string) => text.indexOf(`\n${tag}\n`);
    const order = ["Triggers", "Subscribers", "Workflows", "Topics", "Webhooks"].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const icon = await docs.evaluate(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href);
    const res = await fetch(icon ?? "");
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    await docs.close();
  });

  it("gives the dashboard the same icon", async () => {
    const dashboard = await browser!.newPage();
    await dashboard.goto(`${base}/dashboard/`);
    const icon = await dashboard.evaluate(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href);
    expect(icon).toBe(`${base}/favicon.svg`);
    expect((await fetch(icon ?? "")).status).toBe(200);
    await dashboard.close();
  });
});
