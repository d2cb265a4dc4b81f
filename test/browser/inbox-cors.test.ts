// `@novu/js` 3.19.2 in Chromium, bundled for the browser as a customer's bundler does, on a
// customer's origin that is not Clarion's: every Inbox call is cross-origin, with the preflights its
// headers cause, and Clarion answers them without any origin configured. (Its prebuilt novu.min.js
// cannot be used: 3.19.2 ships it referring to an undefined `PACKAGE_NAME`.)
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT } from "../local-stack";
import { api, base, CHROMIUM, launch } from "./browser";

/** Installed with Novu's SDKs (test/novu-sdk/package.json), as `npm test` does before this suite. */
const SDKS = join(ROOT, "test/novu-sdk");
const HAS_BUNDLE = existsSync(join(SDKS, "node_modules/@novu/js/package.json"));

async function bundle(): Promise<string> {
  const out = await build({
    stdin: { contents: 'import { Novu } from "@novu/js"; window.Novu = Novu;', resolveDir: SDKS },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}
const run = Date.now().toString(36);

/** What this test calls of `@novu/js`'s `Novu`, as the bundle exposes it on `window`. */
interface NovuInbox {
  notifications: {
    list(args: object): Promise<{ data: { notifications: { body: string; read(): Promise<{ data: { isRead: boolean } }> }[] } }>;
    count(args: object): Promise<{ data: { count: number } }>;
  };
}

let browser: Browser | undefined;
let server: Server | undefined;
let origin = "";

beforeAll(async () => {
  if (!CHROMIUM || !HAS_BUNDLE) return;
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const script = await bundle();
  server = createServer((req, res) => {
    if (req.url === "/novu.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><title>Customer app</title><script src="/novu.js"></script>');
  });
  await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", () => resolve()));
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

describe.skipIf(!CHROMIUM || !HAS_BUNDLE)("Novu's Inbox client in Chromium, from another origin", () => {
  it("starts a session, lists, counts and reads a triggered notification", async () => {
    const settings = (await api<{ applicationIdentifier: string }>("GET", "/v1/in-app/settings")).body;
    const workflowKey = `inbox-${run}`;
    const subscriberId = `inbox-${run}`;
    const steps = [{ id: "bell", type: "in_app", template: { subject: "Hello", body: "From {{ payload.from }}" } }];
    expect((await api("POST", "/v1/workflows", { key: workflowKey, name: "Inbox", steps })).status).toBe(201);
    expect((await api("POST", "/v1/trigger", { workflow: workflowKey, to: { subscriberId }, payload: { from: "Clarion" } })).status).toBe(
      202,
    );
    await expect
      .poll(async () => (await api<{ data: unknown[] }>("GET", `/v1/subscribers/${subscriberId}/notifications`)).body.data?.length)
      .toBe(1);

    const page = await browser!.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(`${request.method()} ${request.url()}`));
    await page.goto(origin);
    // The development environment requires no hash: the page holds only public values.
    const result = await page.evaluate(
      async ({ applicationIdentifier, apiUrl, subscriberId }) => {
        const { Novu } = window as unknown as { Novu: new (options: object) => NovuInbox };
        const novu = new Novu({ applicationIdentifier, subscriber: { subscriberId }, apiUrl, useCache: false });
        const listed = await novu.notifications.list({ limit: 10 });
        const first = listed.data.notifications[0]!;
        const before = await novu.notifications.count({ read: false });
        const read = await first.read();
        const after = await novu.notifications.count({ read: false });
        return { body: first.body, before: before.data.count, read: read.data.isRead, after: after.data.count };
      },
      { applicationIdentifier: settings.applicationIdentifier, apiUrl: `${base()}/novu`, subscriberId },
    );
    expect(result).toEqual({ body: "From Clarion", before: 1, read: true, after: 0 });
    expect(failed).toEqual([]);
    await page.close();
  });
});
