import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, ensureEnvironments, ensureSandboxIntegrations, localSql, newEncryptionKey } from "../../scripts/bootstrap.mjs";
import { run } from "../../scripts/lib.mjs";
import { chromiumOrSkip } from "./chromium";

// The real thing end to end: `wrangler dev` on a free port with its own state, the built
// dashboard it serves, and Debian's Chromium driven by playwright-core.

const ROOT = resolve(import.meta.dirname, "../..");
const SCREENSHOTS = join(ROOT, "test/browser/__screenshots__");
const CHROMIUM = chromiumOrSkip();
const CHROMIUM_ARGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const WORKFLOW = "order-update";

let state: string;
let base: string;
let apiKey: string;
let wrangler: ChildProcess | undefined;
let wranglerLog = "";
let browser: Browser | undefined;
let page: Page;
const started = Date.now();
/** Set-up milestones, printed so a slow or stuck start shows where it is. */
const phase = (name: string) => console.log(`[dashboard test] ${((Date.now() - started) / 1000).toFixed(1)}s ${name}`);

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `ApiKey ${apiKey}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.\n--- wrangler output ---\n${wranglerLog.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ends wrangler and the workerd it started: they share the process group made by `detached`. */
async function stopWrangler(): Promise<void> {
  const child = wrangler;
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const killed = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
  if (!killed) {
    signal("SIGKILL");
    await exited;
  }
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  state = mkdtempSync(join(tmpdir(), "clarion-dashboard-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const encryptionKey = newEncryptionKey();

  await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
  phase("built the dashboard");
  await applyMigrations({ persistTo: state, capture: true });
  phase("applied the migrations");
  const sql = localSql({ persistTo: state });
  const { keys } = await ensureEnvironments(sql, ["development"]);
  apiKey = keys.development!;
  await ensureSandboxIntegrations(sql, encryptionKey, "development");
  phase("created the environment, its key and the sandbox integrations");

  // --var wins over a .dev.vars in the repository, so the key that encrypted the sandbox credentials is the Worker's.
  wrangler = spawn(
    join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--local",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      "--var",
      `ENCRYPTION_KEY:${encryptionKey}`,
      "--var",
      `PUBLIC_URL:${base}`,
    ],
    { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" } },
  );
  wrangler.stdout?.on("data", (d: Buffer) => (wranglerLog += d.toString()));
  wrangler.stderr?.on("data", (d: Buffer) => (wranglerLog += d.toString()));
  await until("wrangler dev to answer /health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000);
  phase(`wrangler dev answers on ${base}`);

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  mkdirSync(SCREENSHOTS, { recursive: true });
  phase("Chromium is up");
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopWrangler();
  if (state) rmSync(state, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!CHROMIUM)("the dashboard", () => {
  let messageId: string;

  it("is set up through the API: a workflow with two conditional steps, triggered once", async () => {
    const created = await api("POST", "/v1/workflows", {
      key: WORKFLOW,
      name: "Order update",
      payloadSchema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" }, express: { type: "boolean" } } },
      steps: [
        {
          id: "express-email",
          type: "email",
          if: { field: "payload.express", op: "eq", value: true },
          template: {
            subject: "Express order {{ payload.orderId }} ships today",
            html: "<p>Hi {{ subscriber.firstName }}, it is on its way.</p>",
          },
        },
        {
          id: "standard-sms",
          type: "sms",
          if: { not: { field: "payload.express", op: "eq", value: true } },
          template: { body: "Order {{ payload.orderId }} ships within 3 days." },
        },
      ],
    });
    expect(created.status).toBe(201);
    const triggered = await api<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: WORKFLOW,
      to: { subscriberId: "user-42", email: "ada@example.com", phone: "+41791234567", firstName: "Ada" },
      payload: { orderId: "A-1001", express: true },
    });
    expect(triggered.status).toBe(202);
    // Listing integrations decrypts their credentials: proof that the Worker got the ENCRYPTION_KEY that encrypted them.
    expect((await api("GET", "/v1/integrations?channel=email")).status).toBe(200);

    const sent = await until("the express email to be sent", async () => {
      const list = await api<{ data: { id: string; stepId: string; status: string }[] }>("GET", `/v1/messages?workflow=${WORKFLOW}`);
      return list.body.data.find((m) => m.stepId === "express-email" && m.status === "sent");
    });
    messageId = sent.id;
  });

  it("asks for an API key, then lists the workflows", async () => {
    await page.goto(`${base}/dashboard/`);
    await page.getByText("Enter an API key").waitFor();
    await page.fill("#api-key", apiKey);
    await page.click("form.key button");
    await page.locator(`[data-workflow="${WORKFLOW}"]`).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("clarion.apiKey"))).toBe(apiKey);
  });

  it("shows a workflow's steps and re-renders the preview as the payload changes", async () => {
    await page.click(`[data-workflow="${WORKFLOW}"]`);
    const steps = page.getByTestId("steps-json");
    await steps.waitFor();
    expect(await steps.textContent()).toContain('"express-email"');

    const email = page.locator('[data-step="express-email"]');
    const sms = page.locator('[data-step="standard-sms"]');
    await email.waitFor();
    // The sample payload has no `express`: the SMS runs, the email does not.
    expect(await email.getAttribute("data-would-run")).toBe("false");
    expect(await sms.getAttribute("data-would-run")).toBe("true");

    // Typed key by key: nothing is sent while the JSON is incomplete, and the debounce sends the finished sample once.
    const previews: string[] = [];
    page.on("request", (r) => void (r.url().endsWith(`/v1/workflows/${WORKFLOW}/preview`) && previews.push(r.postData() ?? "")));
    await page.fill("#preview-payload", "");
    await page.locator("#preview-payload").pressSequentially('{ "orderId": "B-2002", "express": true }', { delay: 15 });
    await page.waitForSelector('[data-step="express-email"][data-would-run="true"]');
    expect(previews.length).toBeLessThanOrEqual(2);
    expect(JSON.parse(previews.at(-1) ?? "{}")).toMatchObject({ payload: { orderId: "B-2002", express: true } });
    expect(await sms.getAttribute("data-would-run")).toBe("false");
    expect(await email.locator('[data-field="subject"] .value').textContent()).toBe("Express order B-2002 ships today");
    expect(await email.locator(".leaves li").textContent()).toContain("payload.express eq true");
    expect(await sms.locator(".condition").textContent()).toBe("if not (payload.express eq true) → false");
    await page.screenshot({ path: join(SCREENSHOTS, "workflow-preview.png"), fullPage: true });

    await page.fill("#preview-payload", '{ "orderId": ');
    await page.getByText("The payload is not valid JSON").waitFor();
  });

  it("shows a problem document readably", async () => {
    await page.fill("#preview-subscriber", '{ "email": "not-an-email" }');
    await page.fill("#preview-payload", '{ "orderId": "C-1" }');
    const problem = page.locator(".preview .problem");
    await problem.waitFor();
    expect(await problem.textContent()).toContain("422 Validation failed");
    expect(await problem.textContent()).toContain("subscriber.email");
  });

  it("lists the sent message and shows its timeline", async () => {
    await page.click('nav.tabs a[href="#/messages"]');
    const row = page.locator(`tr[data-message="${messageId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("sent");
    await row.click();
    const timeline = page.getByTestId("timeline");
    await timeline.waitFor();
    expect(await timeline.locator('li[data-status="sent"]').count()).toBe(1);
    expect(await page.locator(".message h2").textContent()).toBe("Express order A-1001 ships today");
    await page.screenshot({ path: join(SCREENSHOTS, "messages.png"), fullPage: true });

    await page.selectOption("#status-filter", "failed");
    await page.getByText("No failed messages.").waitFor();
  });
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
    await docs.getByText("Triggers", { exact: true }).first().click();
    await docs.getByText("Trigger a workflow", { exact: false }).first().waitFor({ timeout: 30_000 });
    await docs.getByText("Authorization: ApiKey YOUR_API_KEY", { exact: false }).first().waitFor();
    await docs.screenshot({ path: join(SCREENSHOTS, "docs.png") });
    // Generated requests go to this origin, so a copied curl runs as it is.
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, without the page's style sheets
    const text = await docs.evaluate(() => document.body.innerText);
    expect(text).toContain(`curl '${base}/v1/`);
    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await docs.close();
  });
});
