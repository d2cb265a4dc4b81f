// The Tenants pages, reached from Subscribers: a tenant made with a brand override shows it in the
// list; its page lists its messages; Activity filters messages by tenant.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const TENANT = `acme-${run}`;
const WORKFLOW = `tenant-notice-${run}`;

async function trigger(to: string, tenant?: string | { id: string; name: string }): Promise<string> {
  const res = await api<{ transactionId: string }>("POST", "/v1/trigger", {
    workflow: WORKFLOW,
    to: { subscriberId: to, email: "t@example.com" },
    ...(tenant ? { tenant } : {}),
  });
  expect(res.status).toBe(202);
  return res.body.transactionId;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const messageOf = (transactionId: string) =>
  until(`the message of ${transactionId}`, async () => {
    const list = await api<{ data: { id: string }[] }>("GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}`);
    return list.body.data[0];
  });

/** Opens a page, signing in first when this page has not yet (each test can run alone). */
async function open(path: string) {
  await page.goto(`${base()}/dashboard${path}`);
  const credential = page.locator("#credential");
  await Promise.race([credential.waitFor(), page.locator("header.top").waitFor()]);
  if (await credential.isVisible()) await signIn(page, path);
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  const workflow = {
    key: WORKFLOW,
    name: "Tenant notice",
    steps: [{ id: "mail", type: "email", template: { subject: "Notice", text: "Hello" } }],
  };
  expect((await api("POST", "/v1/workflows", workflow)).status).toBe(201);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Tenants pages", () => {
  it("creates a tenant from the Subscribers page, overrides its brand with a preview, and shows the override in the list", async () => {
    await signIn(page, "/subscribers");
    await page.getByRole("link", { name: "Tenants" }).click();
    await page.getByRole("heading", { name: "Tenants" }).waitFor();
    const form = page.getByRole("form", { name: "New tenant" });
    await form.getByLabel("Id").fill(TENANT);
    await form.getByLabel("Name").fill("Acme Inc.");
    await form.getByRole("button", { name: "Create tenant" }).click();
    await page.getByRole("heading", { name: "Acme Inc." }).waitFor();

    const settings = page.getByRole("form", { name: "Tenant settings" });
    await settings.getByLabel("Brand name").fill("Acme Brand");
    await settings.getByLabel("Primary colour").fill("#b91c1c");
    // The preview follows the draft before it is saved.
    const preview = page.getByTestId("brand-preview");
    await preview.getByText("Acme Brand").waitFor();
    expect(await preview.locator(".sample-button").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(185, 28, 28)");
    await settings.getByRole("button", { name: "Save tenant" }).click();
    await settings.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const stored = await api<{ brand: Record<string, unknown> }>("GET", `/v1/tenants/${TENANT}`);
    expect(stored.body.brand).toEqual({ name: "Acme Brand", colors: { primary: "#b91c1c" } });
    await screenshot(page, "tenant");

    await page.getByRole("link", { name: "← Tenants" }).click();
    await page.getByLabel("Search").fill(TENANT);
    const row = page.locator(`tr[data-tenant="${TENANT}"]`);
    await row.waitFor();
    // The list read before the save may show first, while it is read again.
    await expect.poll(() => row.getByTestId("tenant-brand").textContent()).toBe("Acme Brand");
    expect(await page.locator("tr[data-tenant]").count()).toBe(1);
  });

  it("lists the tenant's messages on its page, and no other", async () => {
    const mine = await messageOf(await trigger(`tenant-user-${run}`, TENANT));
    const other = await messageOf(await trigger(`plain-user-${run}`));
    await open(`/tenants/${TENANT}`);
    const card = page.getByRole("region", { name: "Recent messages" });
    await card.locator(`tr[data-message="${mine.id}"]`).waitFor();
    expect(await card.locator(`tr[data-message="${other.id}"]`).count()).toBe(0);
    expect(await card.locator("tr[data-message]").count()).toBe(1);
  });

  it("filters Activity by tenant", async () => {
    // A tenant of its own, created by the trigger, so this test needs none of the others.
    const globex = `globex-${run}`;
    const mine = await messageOf(await trigger(`tenant-user2-${run}`, { id: globex, name: "Globex" }));
    const other = await messageOf(await trigger(`plain-user2-${run}`));
    await open("/activity");
    const filters = page.getByRole("form", { name: "Filters" });
    await page.locator(`tr[data-message="${other.id}"]`).waitFor();
    await filters.getByLabel("Tenant").fill(globex);
    await filters.getByLabel("Tenant").press("Enter");
    await page.locator(`tr[data-message="${other.id}"]`).waitFor({ state: "detached" });
    await page.locator(`tr[data-message="${mine.id}"]`).waitFor();
    expect(new URL(page.url()).searchParams.get("tenant")).toBe(globex);
    // Every row left is the tenant's: its one message.
    expect(await page.locator("tr[data-message]").count()).toBe(1);
  });

  it("shows and changes a subscriber's preferences inside a tenant on the subscriber's page", async () => {
    const initech = `initech-${run}`;
    const subscriberId = `prefs-user-${run}`;
    expect((await api("POST", "/v1/tenants", { id: initech, name: "Initech" })).status).toBe(201);
    expect((await api("POST", "/sub", { subscriberId, email: "p@example.com" })).status).toBeLessThan(300);
    await open(`/subscribers/${subscriberId}`);
    const card = page.getByRole("region", { name: "Preferences in a tenant" });
    await card.getByLabel("Tenant", { exact: true }).fill(initech);
    await card.getByRole("button", { name: "Show" }).click();
    const scoped = page.getByTestId("tenant-preferences");
    await scoped.getByRole("checkbox", { name: "SMS", exact: true }).uncheck();
    await scoped.getByRole("button", { name: "Save preferences" }).click();
    await scoped.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const inside = await api<{ channels: Record<string, boolean> }>(
      "GET",
      `/v1/subscribers/${subscriberId}/preferences?tenant=${encodeURIComponent(initech)}`,
    );
    expect(inside.body.channels.sms).toBe(false);
    // The subscriber's own preferences are left as they were.
    const own = await api<{ channels: Record<string, boolean> }>("GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(own.body.channels.sms).toBe(true);
  });
});
