// The dashboard as `npm run deploy:dashboard` builds it for Cloudflare Pages, served from another
// origin as Pages would (its `_headers`, index.html for every path that names no file): it calls
// the API cross-origin, allowed by DASHBOARD_ORIGINS, and a origin not on that list gets nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildDashboard } from "../../scripts/lib.mjs";
import { freePort } from "../local-stack";
import { base, CHROMIUM, launch, screenshot } from "./browser";

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };

/** A static server like Pages: `_headers`' headers for every path on every answer, index.html for paths that name no file. */
function servePages(dir: string, port: number): Promise<Server> {
  const headers = Object.fromEntries(
    // The `/*` block only: the next one is the hashed bundles' caching.
    readFileSync(join(dir, "_headers"), "utf8")
      .split(/\n(?=\S)/)[0]!
      .split("\n")
      .filter((line) => line.startsWith("  "))
      .map((line) => [
        line.trim().slice(0, line.trim().indexOf(":")),
        line
          .trim()
          .slice(line.trim().indexOf(":") + 1)
          .trim(),
      ]),
  );
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = join(dir, path);
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(dir, "index.html");
    res.writeHead(200, { ...headers, "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

let browser: Browser | undefined;
const servers: Server[] = [];
const out = mkdtempSync(join(tmpdir(), "clarion-pages-browser-"));
let stranger = "";

beforeAll(async () => {
  if (!CHROMIUM) return;
  await buildDashboard(["--mode", "pages"], { VITE_API_URL: base(), DASHBOARD_BASE: "/", DASHBOARD_OUT_DIR: out });
  servers.push(await servePages(out, Number(new URL(inject("pagesOrigin")).port)));
  const port = await freePort();
  servers.push(await servePages(out, port));
  stranger = `http://127.0.0.1:${port}`;
  browser = await launch();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  for (const server of servers) server.close();
  rmSync(out, { recursive: true, force: true });
});

describe.skipIf(!CHROMIUM)("the dashboard deployed on its own origin", () => {
  it("signs in with the admin credential, sent in Authorization, and works in the chosen environment", async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${inject("pagesOrigin")}/environments`);
    await page.fill("#credential", inject("adminKey"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "API keys of production" }).waitFor();
    await page.locator("#environment").selectOption("production");
    await page.getByRole("link", { name: "Suppressions" }).click();
    await page.getByText("No suppressed addresses.").or(page.locator("tbody tr").first()).waitFor();
    expect(await page.locator(".problem").count()).toBe(0);
    // No cookie across origins: the trade-off docs/guides/dashboard.md documents.
    expect(await context.cookies(base())).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem("clarion.credential"))).toBe(inject("adminKey"));
    await screenshot(page, "pages-origin");
    await context.close();
  });

  it("is refused by the browser on an origin DASHBOARD_ORIGINS does not list", async () => {
    const page = await browser!.newPage();
    await page.goto(`${stranger}/`);
    await page.fill("#credential", inject("adminKey"));
    await page.getByRole("button", { name: "Sign in" }).click();
    const problem = page.locator(".problem");
    await problem.waitFor();
    expect(await problem.textContent()).toContain("Is the Worker running?");
    expect(await page.locator("header.top").count()).toBe(0);
    await page.close();
  });
});
