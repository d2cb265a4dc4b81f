import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base, CHROMIUM, launch, screenshot, signIn, sql } from "./browser";

// Signing in with the admin credential, the environment switcher, and the Environments & API keys page.
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
});

const status = async (key: string, path = "/v1/workflows") =>
  (await fetch(base() + path, { headers: { Authorization: `ApiKey ${key}` } })).status;

async function suppress(slug: string, address: string) {
  const [env] = await sql(`SELECT id FROM environments WHERE slug = '${slug}'`);
  await sql(
    `INSERT INTO suppressions (environment_id, address, channel, reason, provider, message_id, created_at) VALUES ('${env!.id}', '${address}', 'email', 'hard_bounce', 'resend', NULL, ${Date.now()})`,
  );
}

describe.skipIf(!CHROMIUM)("signing in with the admin credential", () => {
  it("keeps the credential in an HttpOnly cookie that no script can read", async () => {
    await signIn(page, "/environments", inject("adminKey"));
    await page.getByRole("heading", { name: "Environments & API keys" }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: "__Host-clarion_session", httpOnly: true, secure: true, sameSite: "Strict", path: "/" },
    ]);
    expect(cookies[0]!.value).not.toContain(inject("adminKey"));
    const readable = await page.evaluate(() => [document.cookie, JSON.stringify(sessionStorage), JSON.stringify(localStorage)].join(" "));
    expect(readable).not.toContain("clarion_admin_");
    expect(readable).not.toContain("clarion_session");
    await screenshot(page, "environments");
  });

  it("switches environment from the header, and every page then shows that environment's data", async () => {
    const address = `only-in-production-${Date.now()}@example.com`;
    await suppress("production", address);
    await page.getByRole("link", { name: "Suppressions" }).click();
    const switcher = page.locator("#environment");
    expect(await switcher.inputValue()).toBe("development");
    await page.getByText("No suppressed addresses.").or(page.locator("tbody tr").first()).waitFor();
    expect(await page.locator(`tr[data-address="${address}"]`).count()).toBe(0);

    await switcher.selectOption("production");
    await page.locator(`tr[data-address="${address}"]`).waitFor();
    await screenshot(page, "environments-switched");

    // A reload stays in the environment chosen; switching back hides production's row again.
    await page.reload();
    await page.locator(`tr[data-address="${address}"]`).waitFor();
    expect(await page.locator("#environment").inputValue()).toBe("production");
    await page.locator("#environment").selectOption("development");
    await page.locator(`tr[data-address="${address}"]`).waitFor({ state: "detached" });
  });

  it("creates a key shown once, which works at once, and revokes it after a confirmation", async () => {
    await page.getByRole("link", { name: "Environments", exact: true }).click();
    await page.getByRole("link", { name: "API keys of production" }).click();
    await page.getByRole("heading", { name: "production: API keys" }).waitFor();
    await page.getByLabel("Key name").fill("browser-test");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-key");
    await shown.waitFor();
    const key = (await shown.textContent()) ?? "";
    expect(key).toMatch(/^ck_prod_[A-Za-z0-9]{32}$/);
    expect(await page.getByText("you will not see it again", { exact: false }).isVisible()).toBe(true);
    expect(await status(key)).toBe(200);
    await screenshot(page, "environments-new-key");
    await page.getByRole("button", { name: "I have stored it" }).click();
    await shown.waitFor({ state: "detached" });

    const row = page.locator(`tr[data-key-prefix="${key.slice(0, "ck_prod_".length + 6)}"]`);
    await row.getByRole("button", { name: /^Revoke/ }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this key?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await row.waitFor({ state: "detached" });
    expect(await status(key)).toBe(401);
  });

  it("creates an MCP key with the scopes ticked: listed with them, refused by the API, answered at /mcp", async () => {
    await page.getByLabel("Key name").fill("assistant");
    await page.getByLabel("MCP key for an AI assistant", { exact: false }).check();
    const scopes = page.getByRole("group", { name: "MCP scopes" });
    await scopes.getByLabel(/propose: changes/).check();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent()) ?? "";
    await page.getByRole("button", { name: "I have stored it" }).click();
    const row = page.locator(`tr[data-key-prefix="${key.slice(0, "ck_prod_".length + 6)}"]`);
    await row.getByText("MCP: read, propose").waitFor();
    expect(await status(key)).toBe(403);
    const listed = await fetch(`${base()}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const { result } = (await listed.json()) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((t) => t.name)).toContain("propose_change");
    expect(result.tools.map((t) => t.name)).not.toContain("trigger_workflow");
  });

  it("rotates a key: the new one is shown once and both work during the overlap", async () => {
    await page.getByLabel("Key name").fill("to-rotate");
    await page.getByRole("button", { name: "Create key" }).click();
    const old = (await page.getByTestId("new-key").textContent()) ?? "";
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page
      .locator(`tr[data-key-prefix="${old.slice(0, "ck_prod_".length + 6)}"]`)
      .getByRole("button", { name: /^Rotate/ })
      .click();
    const dialog = page.getByRole("dialog", { name: "Rotate this key?" });
    await dialog.getByLabel("Overlap (hours)").fill("1");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    const fresh = (await page.getByTestId("new-key").textContent()) ?? "";
    expect(fresh).not.toBe(old);
    expect([await status(old), await status(fresh)]).toEqual([200, 200]);
    await page
      .locator(`tr[data-key-prefix="${old.slice(0, "ck_prod_".length + 6)}"]`)
      .getByText("expiring")
      .waitFor();
  });

  it("says Copied only for the key in the clipboard: a rotation's new key is not copied yet", async () => {
    const stored = page.getByRole("button", { name: "I have stored it" });
    if (await stored.count()) await stored.click();
    await page.getByLabel("Key name").fill("to-copy");
    await page.getByRole("button", { name: "Create key" }).click();
    const first = (await page.getByTestId("new-key").textContent()) ?? "";
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

    await page
      .locator("tbody tr", { hasText: "to-copy" })
      .getByRole("button", { name: /^Rotate/ })
      .click();
    const dialog = page.getByRole("dialog", { name: "Rotate this key?" });
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect.poll(() => page.getByTestId("new-key").textContent()).not.toBe(first);
    const second = (await page.getByTestId("new-key").textContent()) ?? "";
    expect(await page.getByText("Copied to the clipboard.").count()).toBe(0);
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(second);
    await page.getByRole("button", { name: "I have stored it" }).click();
  });

  it("creates an environment, which the switcher then offers", async () => {
    const slug = `staging-${Date.now().toString(36)}`;
    await page.getByRole("link", { name: "Environments", exact: true }).click();
    await page.getByLabel("Slug").fill("Not A Slug");
    await page.getByLabel("Name").fill("Staging");
    await page.getByRole("button", { name: "Create environment" }).click();
    await page.locator(".field-error").waitFor();
    expect(await page.locator(".field-error").textContent()).not.toMatch(/Too small|Invalid input|expected string/);
    // The error goes once the field is changed, before another attempt.
    await page.getByLabel("Slug").fill(slug);
    await page.locator(".field-error").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Create environment" }).click();
    await page.getByRole("heading", { name: "Staging: API keys" }).waitFor();
    expect(await page.locator(`#environment option[value="${slug}"]`).count()).toBe(1);
  });

  it("opens a shared link in the environment it names, and the address follows the switcher", async () => {
    await page.goto(`${base()}/dashboard/env/production/suppressions`);
    await page.getByRole("heading", { name: "Suppressions" }).waitFor();
    expect(await page.locator("#environment").inputValue()).toBe("production");
    await page.locator("#environment").selectOption("development");
    await page.waitForURL(/\/dashboard\/env\/development\/suppressions$/);
    // An old link without the environment still opens, in the current one.
    await page.goto(`${base()}/dashboard/suppressions`);
    await page.waitForURL(/\/dashboard\/env\/development\/suppressions$/);
  });

  it("says a link names no environment rather than opening development", async () => {
    await page.goto(`${base()}/dashboard/env/nowhere-${Date.now().toString(36)}/workflows`);
    const refused = page.getByTestId("environment-refused");
    await refused.getByRole("heading", { name: /^No environment "nowhere-/ }).waitFor();
    expect(await page.getByRole("heading", { name: "Workflows" }).count()).toBe(0);
    await refused.getByRole("button", { name: "Open development instead" }).click();
    await page.waitForURL(/\/dashboard\/env\/development\/workflows$/);
  });

  it("deletes an environment after a confirmation: its key stops at once and the switcher drops it", async () => {
    const slug = `doomed-${Date.now().toString(36)}`;
    const admin = { Authorization: `ApiKey ${inject("adminKey")}`, "Content-Type": "application/json" };
    expect(
      (await fetch(`${base()}/v1/admin/environments`, { method: "POST", headers: admin, body: JSON.stringify({ name: "Doomed", slug }) }))
        .status,
    ).toBe(201);
    const created = await fetch(`${base()}/v1/admin/environments/${slug}/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "k" }),
    });
    const { key } = (await created.json()) as { key: string };
    expect(await status(key)).toBe(200);
    await page.goto(`${base()}/dashboard/environments/${slug}`);
    await page.getByRole("heading", { name: "Doomed: API keys" }).waitFor();
    await page.getByRole("button", { name: "Delete environment" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete the environment Doomed?" });
    await dialog.getByRole("button", { name: "Delete environment" }).click();
    await page.waitForURL(/\/environments$/);
    await page.locator(`tr[data-environment="${slug}"]`).waitFor({ state: "detached" });
    await expect.poll(() => page.locator(`#environment option[value="${slug}"]`).count()).toBe(0);
    expect(await status(key)).toBe(401);
  });

  it("signs out: the cookie is gone, a copy of it no longer works, and the sign-in form is back", async () => {
    const copied = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const asCopy = () => fetch(`${base()}/v1/admin/environments`, { headers: { cookie: copied, "x-clarion-dashboard": "1" } });
    expect((await asCopy()).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#credential").waitFor();
    expect(await context.cookies()).toEqual([]);
    // The admin's session ended on the server: whoever kept the cookie is signed out too.
    expect((await asCopy()).status).toBe(401);
    await page.reload();
    await page.locator("#credential").waitFor();
  });
});

describe.skipIf(!CHROMIUM)("signing in with an environment key", () => {
  it("lands in that one environment, with no switch and no Environments page", async () => {
    const keyPage = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(keyPage, "/", inject("productionKey"));
    expect(await keyPage.getByTestId("environment").textContent()).toContain("production");
    expect(await keyPage.locator("#environment").count()).toBe(0);
    expect(await keyPage.getByRole("link", { name: "Environments", exact: true }).count()).toBe(0);
    await keyPage.goto(`${base()}/dashboard/environments`);
    await keyPage.getByTestId("admin-only").waitFor();
    expect(await keyPage.getByTestId("admin-only").textContent()).toContain("needs the admin credential");
    expect(await keyPage.getByTestId("not-found").count()).toBe(0);
    await keyPage.close();
  });
});

describe.skipIf(!CHROMIUM)("a production link opened with the development key", () => {
  it("says the link is for production instead of looking for its page in development", async () => {
    const keyPage = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    await keyPage.goto(`${base()}/dashboard/env/production/workflows/some-workflow`);
    await keyPage.fill("#credential", inject("apiKey"));
    await keyPage.getByRole("button", { name: "Sign in" }).click();
    const refused = keyPage.getByTestId("environment-refused");
    await refused.getByRole("heading", { name: "This link is for the production environment" }).waitFor();
    expect(await refused.textContent()).toContain("which reaches that environment only");
    expect(await keyPage.getByText("in this environment").count()).toBe(0);
    await refused.getByRole("button", { name: "Open development instead" }).click();
    await keyPage.waitForURL(/\/dashboard\/env\/development\/workflows\/some-workflow$/);
    await keyPage.close();
  });
});

describe.skipIf(!CHROMIUM)("the Environments page on a 390 px phone", () => {
  it("fits the screen, its tables scrolling inside their box", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/environments", inject("adminKey"));
    await phone.getByRole("link", { name: "API keys of production" }).waitFor();
    const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await phone.locator("#environment").isVisible()).toBe(true);
    await screenshot(phone, "environments-390");
    await phone.getByRole("link", { name: "API keys of production" }).click();
    await phone.getByRole("heading", { name: "production: API keys" }).waitFor();
    await phone.locator("tbody tr").first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(phone, "environment-keys-390");
    await phone.close();
  });
});
