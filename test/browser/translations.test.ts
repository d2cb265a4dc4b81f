import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The Translations grid: keys × locales, a key a locale lacks marked missing, saved in place.
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

const run = Date.now().toString(36);
const KEY = `grid_${run}.title`;
const OTHER = `grid_${run}.body`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  expect((await api("PUT", "/v1/translations/en", { keys: { [KEY]: "Welcome", [OTHER]: "Hello" } })).status).toBe(200);
  expect((await api("PUT", "/v1/translations/fr", { keys: { [OTHER]: "Bonjour" } })).status).toBe(200);
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await signIn(page, "/translations");
  await page.getByRole("heading", { name: "Translations" }).waitFor();
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the translations grid", () => {
  const cell = (key: string, locale: string) => page.locator(`td[data-key="${key}"][data-locale="${locale}"]`);

  it("marks a key a locale lacks as missing, and saving it in place clears the mark", async () => {
    await cell(KEY, "fr").getByText("missing", { exact: true }).waitFor();
    expect(await cell(KEY, "fr").getAttribute("data-state")).toBe("missing");
    expect(await cell(OTHER, "fr").getAttribute("data-state")).toBeNull();
    await screenshot(page, "translations-grid");

    await page.getByRole("textbox", { name: `${KEY} in fr` }).fill("Bienvenue");
    await page.getByRole("button", { name: `Save ${KEY} in fr` }).click();
    await expect.poll(() => cell(KEY, "fr").getAttribute("data-state")).toBeNull();
    const saved = await api<{ keys: Record<string, unknown> }>("GET", "/v1/translations/fr");
    expect(JSON.stringify(saved.body.keys)).toContain("Bienvenue");
    expect(await cell(KEY, "fr").getByText("missing", { exact: true }).count()).toBe(0);
  });
});
