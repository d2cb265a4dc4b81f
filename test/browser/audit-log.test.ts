import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The Audit log page: changes made through the API listed with who made them, filtered, each
// entry's before and after side by side with secrets masked, the selection as NDJSON; the admin
// credential reads every environment.
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

const run = Date.now().toString(36);
const SECRET = `sk_live_${run}_do_not_show`;
const VARIABLE = `AUDIT_${run.toUpperCase()}`;
const PROD_VARIABLE = `AUDIT_PROD_${run.toUpperCase()}`;
/** What the caller names its request: kept beside Clarion's own id, never instead of it. */
const CLIENT_REQUEST_ID = `deploy-${run}`;
let serverRequestId = "";

interface Entry {
  id: string;
  environment: string;
  resource: string;
  resourceId: string;
  action: string;
  before: unknown;
  after: unknown;
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  expect((await api("POST", "/v1/variables", { key: VARIABLE, value: "first", secret: false })).status).toBe(201);
  const put = await fetch(`${base()}/v1/variables/${VARIABLE}`, {
    method: "PUT",
    headers: { Authorization: `ApiKey ${inject("apiKey")}`, "Content-Type": "application/json", "X-Request-Id": CLIENT_REQUEST_ID },
    body: JSON.stringify({ value: SECRET, secret: true }),
  });
  expect(put.status).toBe(200);
  serverRequestId = put.headers.get("x-request-id") ?? "";
  expect(serverRequestId).not.toBe(CLIENT_REQUEST_ID);
  const production = inject("productionKey");
  expect((await api("POST", "/v1/variables", { key: PROD_VARIABLE, value: "p" }, production)).status).toBe(201);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  // The suite shares one Clarion: the Variables page's test expects an empty development list.
  if (CHROMIUM) {
    await api("DELETE", `/v1/variables/${VARIABLE}`);
    await api("DELETE", `/v1/variables/${PROD_VARIABLE}`, undefined, inject("productionKey"));
  }
});

describe.skipIf(!CHROMIUM)("the Audit log page", () => {
  it("lists the environment's changes newest first, with who made them", async () => {
    await signIn(page, "/audit");
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const mine = page.locator(`tr[data-resource="variable"]`, { hasText: VARIABLE });
    await expect.poll(() => mine.count()).toBe(2);
    expect(await mine.first().getAttribute("data-action")).toBe("updated");
    expect(await mine.last().getAttribute("data-action")).toBe("created");
    // Each row says what changed, in one line, as a workflow's History does; field names, never values.
    expect(await mine.first().locator("[data-summary]").textContent()).toBe("secret, value changed");
    expect(await mine.last().locator("[data-summary]").textContent()).toBe("Created");
    // Production's change is not in development's log.
    expect(await page.locator("tr", { hasText: PROD_VARIABLE }).count()).toBe(0);
  });

  it("filters by resource and action, in the address", async () => {
    await page.getByLabel("Resource").selectOption("variable");
    await page.getByLabel("Action").selectOption("updated");
    await page.waitForURL(/resource=variable/);
    expect(page.url()).toContain("action=updated");
    // The list itself, until it shows the filtered entries only: the list of the resource filter
    // alone (or none) also has updated entries, and stays on screen while the new one loads.
    const kinds = () =>
      page
        .locator("tbody tr[data-entry]")
        .evaluateAll((rows) => [...new Set(rows.map((r) => `${r.getAttribute("data-resource")} ${r.getAttribute("data-action")}`))]);
    await expect.poll(kinds).toEqual(["variable updated"]);
  });

  it("shows an entry's before and after side by side, the secret masked", async () => {
    const row = page.locator("tr[data-entry]", { hasText: VARIABLE });
    await row.getByRole("button", { name: "Before / after" }).click();
    const changes = page.getByTestId("entry-changes");
    await changes.waitFor();
    expect(await changes.locator('[data-field="secret"]').getAttribute("data-changed")).toBe("true");
    expect(await changes.locator('[data-field="value"] td.before').textContent()).toContain("first");
    expect(await changes.locator('[data-field="value"] td.after').textContent()).not.toContain(SECRET);
    expect(await page.content()).not.toContain(SECRET);
    await page.getByText(`Request id: ${serverRequestId} (the caller's X-Request-Id: ${CLIENT_REQUEST_ID})`).waitFor();
    await screenshot(page, "audit-log");
  });

  it("downloads the filtered entries as NDJSON, every line an entry, no secret in it", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download NDJSON" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-log-development-\d{4}-\d{2}-\d{2}\.ndjson$/);
    const text = readFileSync((await download.path()) as string, "utf8");
    expect(text).not.toContain(SECRET);
    const entries = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Entry);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.resource === "variable" && e.action === "updated")).toBe(true);
    expect(entries.some((e) => e.resourceId === VARIABLE)).toBe(true);
  });
});

describe.skipIf(!CHROMIUM)("the Audit log with the admin credential", () => {
  it("reads every environment, with the environment named on each entry", async () => {
    const admin = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const adminPage = await admin.newPage();
    await signIn(adminPage, "/audit", inject("adminKey"));
    await adminPage.locator("#audit-scope").selectOption("all");
    await adminPage.waitForURL(/scope=all/);
    const prod = adminPage.locator("tr[data-entry]", { hasText: PROD_VARIABLE });
    await prod.waitFor();
    expect(await prod.textContent()).toContain("production");
    await expect.poll(() => adminPage.locator("tr[data-entry]", { hasText: VARIABLE }).count()).toBe(2);
    await adminPage.locator("#audit-environment").selectOption("production");
    await adminPage.waitForURL(/environment=production/);
    // The production row was listed before the filter too, and the list is empty while it reloads:
    // wait for the filtered list itself (a CI run read it between the address changing and the
    // list re-rendering, and counted the development rows still there).
    const development = adminPage.locator("tr[data-entry]", { hasText: VARIABLE });
    await expect.poll(async () => [await prod.count(), await development.count()]).toEqual([1, 0]);
    await admin.close();
  });
});
