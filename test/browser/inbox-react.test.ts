// `@novu/react` 3.19.2's <Inbox/>, unmodified, on a customer's page (another origin) pointed at
// Clarion with props only: the bell, the feed, a click that reads, the preferences panel.
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT } from "../local-stack";
import { api, base, CHROMIUM, launch, screenshot } from "./browser";

/** Installed with Novu's SDKs (test/novu-sdk/package.json), as `npm test` does before this suite. */
const SDKS = join(ROOT, "test/novu-sdk");
const HAS_SDK = existsSync(join(SDKS, "node_modules/@novu/react/package.json"));
const run = Date.now().toString(36);

/** The page a customer's bundler makes: one React (the dashboard's), @novu/react from the pinned SDKs. */
async function bundle(): Promise<string> {
  const out = await build({
    stdin: {
      contents: `import { Inbox } from "@novu/react"; import { createElement } from "react"; import { createRoot } from "react-dom/client";
        window.mountInbox = (props) => createRoot(document.getElementById("root")).render(createElement(Inbox, props));`,
      resolveDir: SDKS,
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
    define: { "process.env.NODE_ENV": '"production"' },
    alias: { react: join(ROOT, "dashboard/node_modules/react"), "react-dom": join(ROOT, "dashboard/node_modules/react-dom") },
  });
  return out.outputFiles[0]!.text;
}

let browser: Browser | undefined;
let server: Server | undefined;
let origin = "";

beforeAll(async () => {
  if (!CHROMIUM || !HAS_SDK) return;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const script = await bundle();
  server = createServer((req, res) => {
    const isScript = req.url === "/app.js";
    res.writeHead(200, { "content-type": isScript ? "text/javascript" : "text/html" });
    res.end(isScript ? script : '<!doctype html><title>Customer app</title><div id="root"></div><script src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve()));
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

describe.skipIf(!CHROMIUM || !HAS_SDK)("@novu/react <Inbox/> in Chromium", () => {
  it("shows a triggered notification, reads it on click and lists the workflow in preferences", async () => {
    const settings = (await api<{ applicationIdentifier: string; hmacSecret: string }>("GET", "/v1/in-app/settings")).body;
    const workflowKey = `react-${run}`;
    const subscriberId = `react-${run}`;
    const steps = [
      {
        id: "bell",
        type: "in_app",
        template: { subject: "Your export is ready", body: "{{ payload.rows }} rows", primaryAction: { label: "Download" } },
      },
    ];
    expect((await api("POST", "/v1/workflows", { key: workflowKey, name: "Exports", steps })).status).toBe(201);
    expect((await api("POST", "/v1/trigger", { workflow: workflowKey, to: { subscriberId }, payload: { rows: 42 } })).status).toBe(202);
    const feed = async () =>
      (await api<{ data: { read: boolean }[] }>("GET", `/v1/subscribers/${subscriberId}/notifications`)).body.data ?? [];
    await expect.poll(async () => (await feed()).length).toBe(1);

    const page = await browser!.newPage();
    const refused: string[] = [];
    page.on("response", (r) => {
      if (r.url().startsWith(`${base()}/novu/`) && r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    page.on("requestfailed", (r) => refused.push(`failed ${r.method()} ${r.url()}`));
    await page.goto(origin);
    // The props a customer passes, nothing else: the hash comes from their backend.
    await page.evaluate((props) => (window as unknown as { mountInbox: (p: object) => void }).mountInbox(props), {
      applicationIdentifier: settings.applicationIdentifier,
      subscriber: subscriberId,
      subscriberHash: createHmac("sha256", settings.hmacSecret).update(subscriberId).digest("hex"),
      backendUrl: `${base()}/novu`,
    });
    await page.locator("button").first().click();
    await page.getByText("42 rows").waitFor();
    await screenshot(page, "inbox-react");
    await page.getByText("Your export is ready").click();
    await expect.poll(async () => (await feed())[0]?.read).toBe(true);
    await page.locator('[class*="nv-preferences__button"]').click();
    await page.getByText("Exports").waitFor();
    expect(refused).toEqual([]);
    await page.close();
  });

  it("with context={{ tenant }} and its contextHash shows only that tenant's notifications", async () => {
    const settings = (await api<{ applicationIdentifier: string; hmacSecret: string }>("GET", "/v1/in-app/settings")).body;
    const workflowKey = `react-ctx-${run}`;
    const subscriberId = `react-ctx-${run}`;
    const [acme, globex] = [`acme-${run}`, `globex-${run}`];
    for (const id of [acme, globex]) expect((await api("POST", "/v1/tenants", { id, name: id })).status).toBe(201);
    const steps = [{ id: "bell", type: "in_app", template: { body: "Report for {{ tenant.name }}" } }];
    expect((await api("POST", "/v1/workflows", { key: workflowKey, name: "Reports", steps })).status).toBe(201);
    for (const tenant of [acme, globex, undefined])
      expect(
        (await api("POST", "/v1/trigger", { workflow: workflowKey, to: { subscriberId }, ...(tenant ? { tenant } : {}) })).status,
      ).toBe(202);
    const feed = async () => (await api<{ data: unknown[] }>("GET", `/v1/subscribers/${subscriberId}/notifications`)).body.data ?? [];
    await expect.poll(async () => (await feed()).length).toBe(3);

    const page = await browser!.newPage();
    const refused: string[] = [];
    page.on("response", (r) => {
      if (r.url().startsWith(`${base()}/novu/`) && r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.goto(origin);
    const context = { tenant: acme };
    // The customer's backend hashes the context's canonical JSON (one string key: JSON.stringify is canonical).
    await page.evaluate((props) => (window as unknown as { mountInbox: (p: object) => void }).mountInbox(props), {
      applicationIdentifier: settings.applicationIdentifier,
      subscriber: subscriberId,
      subscriberHash: createHmac("sha256", settings.hmacSecret).update(subscriberId).digest("hex"),
      context,
      contextHash: createHmac("sha256", settings.hmacSecret).update(JSON.stringify(context)).digest("hex"),
      backendUrl: `${base()}/novu`,
    });
    await page.locator("button").first().click();
    await page.getByText(`Report for ${acme}`).waitFor();
    expect(await page.getByText("Report for").count()).toBe(1);
    expect(await page.getByText(`Report for ${globex}`).count()).toBe(0);
    expect(refused).toEqual([]);
    await page.close();
  });
});
