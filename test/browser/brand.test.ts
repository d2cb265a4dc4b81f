import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, confirmDialog, launch, signIn } from "./browser";

// The Brand page's history: two saves made through the API are listed, compared field by field
// and the earlier restored as a new version. The brand is left as this file found it.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);

interface Brand {
  name: string | null;
  logoUrl: string | null;
  colors: Record<string, string>;
  footer: string | null;
  address: string | null;
  socialLinks: { name: string; url: string }[];
  version: number;
  updatedAt: string | null;
}
let found: Brand;

const definition = ({ version: _, updatedAt: __, ...rest }: Brand) => rest;

beforeAll(async () => {
  if (!CHROMIUM) return;
  found = (await api<Brand>("GET", "/v1/brand")).body;
  const base = definition(found);
  expect((await api("PUT", "/v1/brand", { ...base, name: `First ${run}` })).status).toBe(200);
  expect((await api("PUT", "/v1/brand", { ...base, name: `Second ${run}`, colors: { ...base.colors, primary: "#112233" } })).status).toBe(
    200,
  );
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await browser?.close();
  if (CHROMIUM) await api("PUT", "/v1/brand", definition(found));
});

describe.skipIf(!CHROMIUM)("the Brand page's versions", () => {
  it("lists the versions, shows what one changed and restores an earlier one", async () => {
    const current = (await api<Brand>("GET", "/v1/brand")).body.version;
    await signIn(page, "/brand");
    const history = page.getByRole("region", { name: "Brand versions" });
    await history.locator(`tr[data-version="${current}"]`).waitFor();
    expect(await history.locator(`tr[data-version="${current}"]`).textContent()).toContain("current");

    await history.getByRole("button", { name: `Changes in version ${current}` }).click();
    const diff = history.getByTestId("content-diff");
    await diff.locator('tr[data-field="name"]').waitFor();
    expect(await diff.locator("tr[data-field]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-field")).sort())).toEqual([
      "colors.primary",
      "name",
    ]);

    await history.getByRole("button", { name: `Revert to version ${current - 1}` }).click();
    await confirmDialog(page);
    await expect
      .poll(async () => (await api<Brand>("GET", "/v1/brand")).body)
      .toMatchObject({
        version: current + 1,
        name: `First ${run}`,
      });
    await history.locator(`tr[data-version="${current + 1}"]`).waitFor();
    await expect.poll(() => page.getByRole("textbox", { name: "Name", exact: true }).inputValue()).toBe(`First ${run}`);
  });

  it("saves only over the version it read: a brand changed meanwhile is refused, not overwritten", async () => {
    // Signed in by the test before, on this page: read it again.
    await page.reload();
    const name = page.getByRole("textbox", { name: "Name", exact: true });
    await name.waitFor();
    await name.fill(`Mine ${run}`);
    // Someone else saves while this form is open.
    const theirs = (await api<Brand>("GET", "/v1/brand")).body;
    expect((await api("PUT", "/v1/brand", { ...definition(theirs), name: `Theirs ${run}` })).status).toBe(200);
    await page.getByRole("button", { name: "Save brand" }).click();
    await page.getByText("changed by someone else").waitFor();
    expect((await api<Brand>("GET", "/v1/brand")).body).toMatchObject({ name: `Theirs ${run}`, version: theirs.version + 1 });
  });
});
