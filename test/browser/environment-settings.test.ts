import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, base, CHROMIUM, confirmDialog, launch, screenshot, signIn } from "./browser";

// The environment page's Inbox settings (identifier, hmac, secret, snippets) and preference-page
// branding (name, logo, colour, preview, revoking links). The page shows production while the
// header's environment is development: every call must act in the environment of the page.
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

interface InAppSettings {
  applicationIdentifier: string;
  hmacSecret: string;
  hmacRequired: boolean;
  sessionProfileWrites: "create_only" | "always";
  apiUrl: string;
  socketUrl: string;
}
const production = () => inject("productionKey");
const inAppOf = async (key: string) => (await api<InAppSettings>("GET", "/v1/in-app/settings", undefined, key)).body;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
  await signIn(page, "/environments/production", inject("adminKey"));
  await page.getByRole("heading", { name: "production: API keys" }).waitFor();
  expect(await page.locator("#environment").inputValue()).toBe("development");
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the environment page's Inbox settings", () => {
  const card = () => page.getByTestId("in-app-settings");

  it("shows the identifier of the environment on the page, not the one chosen in the header", async () => {
    const [prod, dev] = [await inAppOf(production()), await inAppOf(inject("apiKey"))];
    expect(prod.applicationIdentifier).not.toBe(dev.applicationIdentifier);
    await card().getByTestId("application-identifier").getByText(prod.applicationIdentifier).waitFor();
    expect(await card().getByText(prod.apiUrl, { exact: true }).isVisible()).toBe(true);
    expect(await card().getByText(prod.socketUrl, { exact: true }).isVisible()).toBe(true);
    await screenshot(page, "environment-settings");
  });

  it("turns the subscriber hash requirement off and on", async () => {
    const toggle = card().getByLabel("Require a subscriber hash");
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await card().getByText("For development only.").waitFor();
    expect((await inAppOf(production())).hmacRequired).toBe(false);
    await toggle.click();
    await card().getByText("computed by your backend").waitFor();
    expect((await inAppOf(production())).hmacRequired).toBe(true);
  });

  it("chooses what an Inbox session may write of a profile, and says the risk of always", async () => {
    const select = card().getByLabel("What an Inbox session may write of the profile it is sent");
    expect(await select.inputValue()).toBe("create_only");
    await card().getByText("an existing subscriber is never changed by it").waitFor();
    await select.selectOption("always");
    await card().getByText("Any signed-in end user can set their own email, phone, data").waitFor();
    // The card shows the choice as it is sent: the saved setting follows moments later.
    await expect.poll(async () => (await inAppOf(production())).sessionProfileWrites).toBe("always");
    expect((await inAppOf(inject("apiKey"))).sessionProfileWrites).toBe("create_only");
    await select.selectOption("create_only");
    await card().getByText("an existing subscriber is never changed by it").waitFor();
    await expect.poll(async () => (await inAppOf(production())).sessionProfileWrites).toBe("create_only");
  });

  it("reveals the HMAC secret, and rotates it after a confirmation", async () => {
    const before = (await inAppOf(production())).hmacSecret;
    expect(await card().getByTestId("hmac-secret").count()).toBe(0);
    await card().getByRole("button", { name: "Reveal secret" }).click();
    expect(await card().getByTestId("hmac-secret").textContent()).toBe(before);
    await card().getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog", { name: "Rotate the Inbox HMAC secret?" }).waitFor();
    await confirmDialog(page);
    const after = (await inAppOf(production())).hmacSecret;
    expect(after).not.toBe(before);
    await card().getByTestId("hmac-secret").getByText(after).waitFor();
  });

  it("gives React and @novu/js snippets with this Clarion's addresses, ready to copy", async () => {
    const settings = await inAppOf(production());
    const snippet = card().getByTestId("snippet");
    const react = (await snippet.textContent()) ?? "";
    expect(react).toContain('import { Inbox } from "@novu/react";');
    expect(react).toContain(`applicationIdentifier="${settings.applicationIdentifier}"`);
    // @novu/react 3.19.2's <Inbox> takes the API address as backendUrl: it has no apiUrl prop.
    expect(react).toContain(`backendUrl="${settings.apiUrl}"`);
    expect(react).toContain(`socketUrl="${settings.socketUrl}"`);
    expect(react).toContain('socketOptions={{ socketType: "cloud" }}');
    expect(react).toContain("subscriberHash={subscriberHash}");
    await card().getByRole("button", { name: "Copy snippet" }).click();
    await card().getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(react);

    await card().getByRole("button", { name: "@novu/js" }).click();
    await card().locator('[data-testid="snippet"][data-kind="js"]').waitFor();
    const js = (await snippet.textContent()) ?? "";
    expect(js).toContain('import { Novu } from "@novu/js";');
    expect(js).toContain(`apiUrl: "${settings.apiUrl}"`);
    expect(js).toContain(`socketUrl: "${settings.socketUrl}"`);
    await card().getByRole("button", { name: "Subscriber hash (backend)" }).click();
    expect(await snippet.textContent()).toContain('createHmac("sha256"');
  });
});

describe.skipIf(!CHROMIUM)("the environment page's preference-page branding", () => {
  const card = () => page.getByTestId("preference-page-settings");
  const run = Date.now().toString(36);

  it("hints at the accent colour's contrast with white", async () => {
    const accent = card().getByLabel("Accent colour");
    await accent.fill("#ffdd00");
    await card()
      .getByTestId("contrast")
      .getByText(/below the 4.5:1/)
      .waitFor();
    await accent.fill("#1d4ed8");
    await card()
      .getByTestId("contrast")
      .getByText(/meets WCAG AA/)
      .waitFor();
  });

  it("saves the brand name, logo and colour, and says what the API refuses on its field", async () => {
    await card().getByLabel("Brand name").fill(`Acme ${run}`);
    await card().getByLabel("Logo URL").fill("http://example.com/logo.png");
    await card().getByLabel("Accent colour").fill("#7a2e8e");
    await card().getByRole("button", { name: "Save branding" }).click();
    await card().locator(".field-error", { hasText: /./ }).first().waitFor();
    expect(await card().getByLabel("Logo URL").getAttribute("aria-invalid")).toBe("true");

    await card().getByLabel("Logo URL").fill("https://example.com/logo.png");
    await card().getByRole("button", { name: "Save branding" }).click();
    await card().getByText("Saved.").waitFor();
    const saved = await api("GET", "/v1/preference-links/settings", undefined, production());
    expect(saved.body).toEqual({
      brandName: `Acme ${run}`,
      logoUrl: "https://example.com/logo.png",
      accentColor: "#7a2e8e",
      translations: {},
    });
    // Development keeps its own.
    const dev = await api<{ brandName: string | null }>("GET", "/v1/preference-links/settings");
    expect(dev.body.brandName).not.toBe(`Acme ${run}`);
  });

  it("opens a preview of a subscriber's page with the branding, and revokes every link after a confirmation", async () => {
    const subscriberId = `brand-${run}`;
    expect((await api("POST", "/sub", { subscriberId, email: "brand@example.com" }, production())).status).toBeLessThan(300);
    await card().getByLabel("Preview for subscriber").fill(subscriberId);
    await card().getByRole("button", { name: "Get preview link" }).click();
    const link = card().getByTestId("preview-link");
    await link.waitFor();
    const href = (await link.getAttribute("href")) ?? "";
    expect(href.startsWith(`${base()}/p/`)).toBe(true);
    const [preview] = await Promise.all([context.waitForEvent("page"), link.click()]);
    await preview.getByText(`Acme ${run}`, { exact: true }).waitFor();
    await preview.close();

    await card().getByRole("button", { name: "Rotate link secret" }).click();
    await page.getByRole("dialog", { name: "Revoke every preference and unsubscribe link?" }).waitFor();
    await confirmDialog(page);
    await card()
      .getByText(/no longer work/)
      .waitFor();
    expect((await fetch(href)).status).toBe(404);
  });
});
