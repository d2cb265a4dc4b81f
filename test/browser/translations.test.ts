import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, confirmDialog, launch, screenshot, signIn } from "./browser";

// The Translations grid: keys × locales, a key a locale lacks marked missing, saved in place.
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

const run = Date.now().toString(36);
const KEY = `grid_${run}.title`;
const OTHER = `grid_${run}.body`;
const ITEMS = `grid_${run}.items`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  expect(
    (
      await api("PUT", "/v1/translations/en", {
        keys: { [KEY]: "Welcome", [OTHER]: "Hello", [ITEMS]: { one: "{{ count }} item", other: "{{ count }} items" } },
      })
    ).status,
  ).toBe(200);
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
  // One Clarion serves every suite: leave the default locale as the others expect it.
  if (CHROMIUM) await api("PUT", "/v1/translations/settings", { defaultLocale: "en" });
});

interface Locale {
  keys: Record<string, unknown>;
  version: number;
}
/** A flat key's value in a locale's nested keys. */
const textAt = (keys: Record<string, unknown>, flat: string) =>
  flat.split(".").reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], keys);

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

  it("edits a plural text in place, one input per plural form of the locale, and saves it with the same PUT", async () => {
    // English has two forms: one input each, and no other.
    const en = cell(ITEMS, "en");
    expect(await en.getAttribute("data-state")).toBeNull();
    expect(await en.getByRole("textbox").count()).toBe(2);
    expect(await page.getByRole("textbox", { name: `${ITEMS} in en, one` }).inputValue()).toBe("{{ count }} item");
    await page.getByRole("textbox", { name: `${ITEMS} in en, other` }).fill("{{ count }} things");
    await page.getByRole("button", { name: `Save ${ITEMS} in en` }).click();
    await expect
      .poll(async () => textAt((await api<Locale>("GET", "/v1/translations/en")).body.keys, ITEMS))
      .toEqual({ one: "{{ count }} item", other: "{{ count }} things" });

    // French lacks the key: its cell offers French's forms (as the browser's Intl.PluralRules knows them, as the server's does).
    const forms = await page.evaluate(() => new Intl.PluralRules("fr").resolvedOptions().pluralCategories);
    const fr = cell(ITEMS, "fr");
    await fr.getByText("missing", { exact: true }).waitFor();
    expect(await fr.getByRole("textbox").count()).toBe(forms.length);
    await page.getByRole("textbox", { name: `${ITEMS} in fr, one` }).fill("{{ count }} article");
    await page.getByRole("textbox", { name: `${ITEMS} in fr, other` }).fill("{{ count }} articles");
    await page.getByRole("button", { name: `Save ${ITEMS} in fr` }).click();
    await expect.poll(() => fr.getAttribute("data-state")).toBeNull();
    const saved = await api<Locale>("GET", "/v1/translations/fr");
    expect(textAt(saved.body.keys, ITEMS)).toEqual({ one: "{{ count }} article", other: "{{ count }} articles" });
    expect(textAt(saved.body.keys, KEY)).toBe("Bienvenue");
  });

  it("changes the environment's default locale, and the grid shows which it is", async () => {
    const header = (locale: string) => page.locator("table.translations-grid thead th", { hasText: locale });
    expect(await header("en").getByText("default", { exact: true }).count()).toBe(1);
    const picker = page.getByRole("combobox", { name: "Default locale" });
    expect(await picker.inputValue()).toBe("en");
    await picker.selectOption("fr");
    await page.getByRole("button", { name: "Make default" }).click();
    await expect.poll(async () => (await api<{ defaultLocale: string }>("GET", "/v1/translations/settings")).body.defaultLocale).toBe("fr");
    await header("fr").getByText("default", { exact: true }).waitFor();
    expect(await header("en").getByText("default", { exact: true }).count()).toBe(0);
    // The default's column comes first.
    expect(await page.locator("table.translations-grid thead th").nth(1).textContent()).toContain("fr");

    await page.getByRole("combobox", { name: "Default locale" }).selectOption("en");
    await page.getByRole("button", { name: "Make default" }).click();
    await expect.poll(async () => (await api<{ defaultLocale: string }>("GET", "/v1/translations/settings")).body.defaultLocale).toBe("en");
  });

  it("lists a locale's versions, compares two and restores one", async () => {
    const history = page.getByRole("region", { name: "Translation history" });
    await history.getByRole("combobox", { name: "History of locale" }).selectOption("fr");
    const before = (await api<Locale>("GET", "/v1/translations/fr")).body.version;
    await history.locator(`tr[data-version="${before}"]`).waitFor();
    await history.getByRole("button", { name: `Changes in version ${before}` }).click();
    await history.getByTestId("content-diff").locator(`tr[data-field="${ITEMS}"]`).waitFor();

    await history.getByRole("button", { name: `Revert to version ${before - 1}` }).click();
    await confirmDialog(page);
    await expect.poll(async () => (await api<Locale>("GET", "/v1/translations/fr")).body.version).toBe(before + 1);
    expect(textAt((await api<Locale>("GET", "/v1/translations/fr")).body.keys, ITEMS)).toBeUndefined();
    await history.locator(`tr[data-version="${before + 1}"]`).waitFor();
  });
});
