import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn, confirmDialog } from "./browser";

// The production environment starts with no integrations, so this suite's chat integrations
// never take over from the development environment's sandbox that other suites send through.
const key = () => inject("productionKey");
const GOOD_TOKEN = "123456:good-token-abcdef";

interface Integration {
  id: string;
  name: string;
  active: boolean;
  primary: boolean;
  priority: number;
  credentials: Record<string, unknown>;
  baseUrl: string | null;
}

let browser: Browser | undefined;
let page: Page;
let telegram: Server;
let telegramUrl: string;
/** The bot tokens the fake Telegram was asked about, in order. */
const asked: string[] = [];

beforeAll(async () => {
  if (!CHROMIUM) return;
  // Telegram's getMe as the adapter's check calls it: one token is good, every other is refused.
  telegram = createServer((req, res) => {
    const token = /^\/bot([^/]+)\/getMe$/.exec(req.url ?? "")?.[1];
    if (token) asked.push(decodeURIComponent(token));
    const good = token !== undefined && decodeURIComponent(token) === GOOD_TOKEN;
    res.writeHead(good ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify(good ? { ok: true, result: { username: "clarion_test_bot" } } : { ok: false, description: "Unauthorized" }));
  });
  await new Promise<void>((resolve) => telegram.listen(0, "127.0.0.1", resolve));
  telegramUrl = `http://127.0.0.1:${(telegram.address() as AddressInfo).port}`;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => telegram?.close(resolve));
});

const integrations = async () =>
  (await api<{ data: Integration[] }>("GET", "/v1/integrations?channel=chat&limit=100", undefined, key())).body.data;
const byName = async (name: string) => (await integrations()).find((i) => i.name === name)!;
const rowOf = (id: string) => page.locator(`tr[data-integration="${id}"]`);
/** The chat table's integration ids, top to bottom. */
const chatOrder = () =>
  page
    .locator('section[aria-labelledby="channel-chat"] tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-integration")));

async function newTelegram(name: string, token: string) {
  await page.goto(`${base()}/dashboard/integrations/new?channel=chat`);
  await page.getByLabel("Provider").selectOption("telegram");
  await page.getByLabel("Bot token").fill(token);
  await page.getByLabel("Name").fill(name);
  await page.locator("summary", { hasText: "Advanced" }).click();
  await page.getByLabel("Base URL (optional)").fill(telegramUrl);
}

describe.skipIf(!CHROMIUM)("the Integrations page", () => {
  it("builds the form from the provider's schema and shows a bad credential's error on its field", async () => {
    await signIn(page, "/integrations/new?channel=chat", key());
    await page.getByLabel("Provider").selectOption("telegram");
    // Generated from telegram's JSON Schema: a hidden secret input and an optional enum.
    expect(await page.getByLabel("Bot token").getAttribute("type")).toBe("password");
    expect(await page.getByLabel("Parse mode (optional)").locator("option").allTextContents()).toEqual([
      "Not set",
      "MarkdownV2",
      "HTML",
      "Markdown",
    ]);
    await page.getByLabel("Bot token").fill("not a telegram token");
    await page.getByRole("button", { name: "Create integration" }).click();
    const token = page.getByLabel("Bot token");
    await page.waitForFunction(() => document.querySelector('input[name="botToken"]')?.getAttribute("aria-invalid") === "true");
    const describedBy = (await token.getAttribute("aria-describedby"))!.split(" ")[0]!;
    // The adapter's own message for the field, placed under the field.
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe("A bot token from @BotFather, e.g. 123456:ABC-DEF…");
    expect(page.url()).toContain("/integrations/new");
    await screenshot(page, "integrations-bad-credential");
    expect(await integrations()).toEqual([]);
  });

  it("says a missing credential is required, in words rather than the validator's", async () => {
    await page.goto(`${base()}/dashboard/integrations/new?channel=sms`);
    await page.getByLabel("Provider").selectOption("twilio");
    await page.getByRole("button", { name: "Create integration" }).click();
    await page.waitForFunction(() => document.querySelector('input[name="accountSid"]')?.getAttribute("aria-invalid") === "true");
    const describedBy = (await page.locator('input[name="accountSid"]').getAttribute("aria-describedby"))!.split(" ")[0]!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe("Required");
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown
    const shown = await page.evaluate(() => document.body.innerText);
    expect(shown).not.toMatch(/Invalid input|expected string|received undefined|Too small/);
    expect(await integrations()).toEqual([]);
  });

  it("creates one against a fake Telegram, checks it, and never shows its token back", async () => {
    await newTelegram("Ops bot", GOOD_TOKEN);
    await page.getByRole("button", { name: "Create integration" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    const ops = await byName("Ops bot");
    expect(ops.credentials.botToken).toBe("1234••••");
    expect(ops.baseUrl).toBe(telegramUrl);

    await rowOf(ops.id).getByRole("button", { name: "Check Ops bot" }).click();
    const result = rowOf(ops.id).locator(".check-result");
    await result.waitFor();
    expect(await result.getAttribute("data-ok")).toBe("true");
    expect(await result.textContent()).toContain("@clarion_test_bot");
    expect(asked.at(-1)).toBe(GOOD_TOKEN);

    // The edit form leaves the stored token out of every input and keeps it when saved untouched.
    await rowOf(ops.id).getByRole("link", { name: "Ops bot" }).click();
    await page.getByLabel("Name").waitFor();
    expect(await page.getByLabel("Bot token").inputValue()).toBe("");
    expect(await page.content()).not.toContain(GOOD_TOKEN);
    await page.getByLabel("Name").fill("Ops bot (renamed)");
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    await rowOf(ops.id).getByRole("button", { name: "Check Ops bot (renamed)" }).click();
    await rowOf(ops.id).locator(".check-result").waitFor();
    expect(await rowOf(ops.id).locator(".check-result").getAttribute("data-ok")).toBe("true");
    expect(asked.at(-1)).toBe(GOOD_TOKEN);
  });

  it("shows a refused token's check, and asks for the secret again when the base URL moves", async () => {
    await newTelegram("Wrong bot", "999:refused-token-xyz");
    await page.getByRole("button", { name: "Create integration" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    const wrong = await byName("Wrong bot");
    await page.goto(`${base()}/dashboard/integrations/${wrong.id}`);
    await page.getByRole("button", { name: "Check" }).click();
    const result = page.locator(".check-result");
    await result.waitFor();
    expect(await result.getAttribute("data-ok")).toBe("false");
    expect(await result.textContent()).toContain("Telegram refused the token: Unauthorized");
    expect(await result.textContent()).not.toContain("refused-token-xyz");

    // A new destination must not receive the old secret unasked.
    await page.getByLabel("Base URL (optional)").fill(`${telegramUrl.replace("127.0.0.1", "localhost")}/`);
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForFunction(() => document.querySelector('input[name="botToken"]')?.getAttribute("aria-invalid") === "true");
    expect(await page.locator(".problem").getAttribute("data-code")).toBe("secret_requires_resupply");
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "integrations-resupply");
    await page.getByLabel("Bot token").fill(GOOD_TOKEN);
    await page.getByRole("button", { name: "Save" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    expect((await byName("Wrong bot")).baseUrl).toContain("localhost");
  });

  it("adds a sandbox, reorders the failover, makes one primary and switches one off", async () => {
    await page.goto(`${base()}/dashboard/integrations/new?channel=chat`);
    await page.getByLabel("Provider").selectOption("sandbox-chat");
    await page.getByText("This provider needs no credentials.").waitFor();
    await page.getByLabel("Name").fill("Chat sandbox");
    await page.getByRole("button", { name: "Create integration" }).click();
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    const [ops, wrong, sandbox] = [await byName("Ops bot (renamed)"), await byName("Wrong bot"), await byName("Chat sandbox")];
    await rowOf(sandbox!.id).waitFor();
    expect(await chatOrder()).toEqual([ops!.id, wrong!.id, sandbox!.id]);

    await page.getByRole("button", { name: "Move Chat sandbox up" }).click();
    await expect.poll(chatOrder).toEqual([ops!.id, sandbox!.id, wrong!.id]);
    const priorities = Object.fromEntries((await integrations()).map((i) => [i.id, i.priority]));
    expect(priorities[ops!.id]! < priorities[sandbox!.id]! && priorities[sandbox!.id]! < priorities[wrong!.id]!).toBe(true);

    await rowOf(wrong!.id).getByRole("button", { name: "Make Wrong bot primary" }).click();
    await rowOf(wrong!.id).locator(".badge", { hasText: "primary" }).waitFor();
    expect((await chatOrder())[0]).toBe(wrong!.id);
    expect(await rowOf(wrong!.id).getByRole("button", { name: /Move/ }).count()).toBe(0);

    const active = rowOf(ops!.id).getByRole("switch", { name: "Ops bot (renamed) active" });
    await active.click();
    await page.waitForFunction((id) => document.querySelector(`tr[data-integration="${id}"]`)?.classList.contains("inactive"), ops!.id);
    expect((await byName("Ops bot (renamed)")).active).toBe(false);
    expect((await byName("Wrong bot")).primary).toBe(true);
    await screenshot(page, "integrations");
  });

  it("deletes an integration from its page", async () => {
    const sandbox = await byName("Chat sandbox");
    await page.goto(`${base()}/dashboard/integrations/${sandbox.id}`);
    await page.getByRole("button", { name: "Delete" }).click();
    await confirmDialog(page);
    await page.waitForURL(/\/dashboard\/env\/production\/integrations$/);
    const [wrong, ops] = [await byName("Wrong bot"), await byName("Ops bot (renamed)")];
    await expect.poll(chatOrder).toEqual([wrong.id, ops.id]);
    expect((await api("GET", `/v1/integrations/${sandbox.id}`, undefined, key())).status).toBe(404);
  });

  it("shows an integration's settings in clear in its form, and none of its secrets", async () => {
    const secret = "re_live_browser_0123456789";
    const created = await api<Integration>(
      "POST",
      "/v1/integrations",
      { provider: "resend", name: "Billing mail", active: false, credentials: { apiKey: secret, from: "Billing <billing@acme.dev>" } },
      key(),
    );
    expect(created.status).toBe(201);
    await page.goto(`${base()}/dashboard/integrations/${created.body.id}`);
    await expect.poll(() => page.getByLabel("From", { exact: true }).inputValue()).toBe("Billing <billing@acme.dev>");
    expect(await page.getByLabel("API key").inputValue()).toBe("");
    expect(await page.getByLabel("API key").getAttribute("type")).toBe("password");
    expect(await page.content()).not.toContain(secret.slice(4));
    expect((await api("DELETE", `/v1/integrations/${created.body.id}`, undefined, key())).status).toBe(204);
  });

  it("fits a 390 px phone", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/integrations", key());
    await phone.locator('section[aria-labelledby="channel-chat"] tbody tr').first().waitFor();
    // Every channel has its place, an empty one with a way to fill it.
    await phone.getByText("No Email integration yet.").waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "integrations-390");
    await phone.goto(`${base()}/dashboard/integrations/new?channel=email&provider=ses`);
    await phone.getByLabel("Secret access key").waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "integrations-new-390");
    await phone.close();
  });
});
