import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn, confirmDialog } from "./browser";

// The production environment, so no other suite's templates see these variables.
const key = () => inject("productionKey");
const SECRET = "sk_live_never-shown-0123456789";

interface Variable {
  key: string;
  value: string;
  secret: boolean;
}

let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

const variable = async (name: string) => api<Variable>("GET", `/v1/variables/${name}`, undefined, key());
const rowOf = (name: string) => page.locator(`tr[data-key="${name}"]`);

async function create(name: string, value: string, secret: boolean) {
  await page.goto(`${base()}/dashboard/variables/new`);
  await page.getByLabel("Key").fill(name);
  if (secret) await page.getByLabel("Secret").check();
  await page.getByLabel("Value").fill(value);
  await page.getByRole("button", { name: "Create variable" }).click();
}

describe.skipIf(!CHROMIUM)("the Variables page", () => {
  it("creates a plain and a secret variable; the secret's value is never shown", async () => {
    await signIn(page, "/variables", key());
    await page.getByText("No variables yet.").waitFor();
    await create("SUPPORT_EMAIL", "help@acme.dev", false);
    await rowOf("SUPPORT_EMAIL").waitFor();
    await create("STRIPE_KEY", SECRET, true);
    await rowOf("STRIPE_KEY").waitFor();

    expect(await rowOf("SUPPORT_EMAIL").textContent()).toContain("help@acme.dev");
    expect(await rowOf("STRIPE_KEY").textContent()).toContain("secret");
    expect(await rowOf("STRIPE_KEY").textContent()).toContain("••••••••");
    expect(await page.content()).not.toContain(SECRET);
    expect((await variable("STRIPE_KEY")).body.value).toBe("••••••••");
    await screenshot(page, "variables");
  });

  it("refuses a bad key on its field", async () => {
    await create("1-bad key", "x", false);
    await page.waitForFunction(() => document.querySelector(".variable-form input")?.getAttribute("aria-invalid") === "true");
    expect(await page.locator(".field-error").first().textContent()).toContain("Keys start with a letter");
    expect((await variable("1-bad key")).status).toBe(404);
  });

  it("edits a plain value, replaces a secret only when retyped, and keeps it otherwise", async () => {
    await page.goto(`${base()}/dashboard/variables`);
    await rowOf("SUPPORT_EMAIL").getByRole("link", { name: "Edit SUPPORT_EMAIL" }).click();
    expect(await page.getByLabel("Value").inputValue()).toBe("help@acme.dev");
    await page.getByLabel("Value").fill("support@acme.dev");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/variables$/);
    await page.waitForFunction(() => document.querySelector('tr[data-key="SUPPORT_EMAIL"]')?.textContent?.includes("support@acme.dev"));

    // The secret's input starts empty; saving it untouched keeps the stored value.
    await page.goto(`${base()}/dashboard/variables/STRIPE_KEY`);
    const value = page.getByLabel("Value");
    await value.waitFor();
    expect(await value.inputValue()).toBe("");
    expect(await value.getAttribute("type")).toBe("password");
    const before = await variable("STRIPE_KEY");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/variables$/);
    expect((await variable("STRIPE_KEY")).body).toEqual(before.body);

    // Turning it plain without a new value is refused on the value's field.
    await page.goto(`${base()}/dashboard/variables/STRIPE_KEY`);
    await page.getByLabel("Secret").uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForFunction(() => document.querySelector(".variable-form textarea")?.getAttribute("aria-invalid") === "true");
    expect(await page.locator(".field-error").textContent()).toContain("Required when `secret` turns false.");
    await page.getByLabel("Value").fill("pk_public_value");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/variables$/);
    expect((await variable("STRIPE_KEY")).body).toMatchObject({ value: "pk_public_value", secret: false });
  });

  it("asks before deleting in a dialog that works from the keyboard alone", async () => {
    await page.goto(`${base()}/dashboard/variables`);
    const opener = rowOf("SUPPORT_EMAIL").getByRole("button", { name: "Delete SUPPORT_EMAIL" });
    await opener.focus();
    await page.keyboard.press("Enter");

    // A modal dialog named by its title, with focus moved into it.
    const dialog = page.getByRole("dialog", { name: "Delete SUPPORT_EMAIL?" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    const focusInDialog = () => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')));
    expect(await focusInDialog()).toBe(true);

    // Tab and Shift+Tab go round its two buttons and never leave it.
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? "");
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInDialog()).toBe(true);
      seen.add(await focused());
    }
    expect([...seen].sort()).toEqual(["Cancel", "Delete variable"]);
    await page.keyboard.press("Shift+Tab");
    expect(await focusInDialog()).toBe(true);

    // Escape closes it, nothing is deleted, and focus is back on the button that opened it.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => opener.evaluate((button) => button === document.activeElement)).toBe(true);
    expect((await variable("SUPPORT_EMAIL")).status).toBe(200);

    // Enter on the confirming button deletes.
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Delete variable" }).focus();
    await page.keyboard.press("Enter");
    await rowOf("SUPPORT_EMAIL").waitFor({ state: "detached" });
    expect((await variable("SUPPORT_EMAIL")).status).toBe(404);
    expect(await focusInDialog()).toBe(false);
    // The opener went with its row: the page's content has focus, not the document body.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");
  });

  it("deletes a variable", async () => {
    await rowOf("STRIPE_KEY").getByRole("button", { name: "Delete STRIPE_KEY" }).click();
    await confirmDialog(page);
    await rowOf("STRIPE_KEY").waitFor({ state: "detached" });
    expect((await variable("STRIPE_KEY")).status).toBe(404);
  });

  it("keeps a variable called `keys` apart from the workflow editor's list of keys", async () => {
    // `keys` is a valid key: the variable's own page and the editor's list of keys once shared a
    // cache entry, so the editor opened after it read a variable as a list and the page fell over.
    await create("keys", "kept-apart", false);
    await rowOf("keys").getByRole("link", { name: "Edit keys" }).click();
    await page.waitForURL(/\/variables\/keys$/);
    // The router renders the new page in a transition: wait for its value rather than read the first "Value" seen.
    await expect.poll(() => page.getByLabel("Value").inputValue()).toBe("kept-apart");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" }).click();
    await page.getByRole("link", { name: "New workflow" }).click();
    await page.getByLabel("Name", { exact: true }).waitFor();
    expect(await page.getByText("Unexpected Application Error").count()).toBe(0);

    // And back: the variable's page shows the variable, not the editor's list.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Variables" }).click();
    await rowOf("keys").getByRole("link", { name: "Edit keys" }).click();
    await expect.poll(() => page.getByLabel("Value").inputValue()).toBe("kept-apart");
    expect((await variable("keys")).body.value).toBe("kept-apart");
  });

  it("fits a 390 px phone", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/variables", key());
    await phone.locator('tr[data-key="keys"]').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "variables-390");
    await phone.close();
  });
});
