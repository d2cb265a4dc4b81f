import { createRequire } from "node:module";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, launch } from "./browser";

// The hosted preference page as a subscriber meets it: a phone and a desktop, axe-core's WCAG A/AA
// rules, and a browser with JavaScript turned off that still saves.
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const run = Date.now().toString(36);
const subscriberId = `pref-${run}`;
let browser: Browser | undefined;
let pagePath = "";
let germanPath = "";

type AxeResult = { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  for (const [key, name, steps] of [
    [`news-${run}`, "Product news", [{ id: "m", type: "email", template: { subject: "S", text: "T" } }]],
    [
      `digest-${run}`,
      "Weekly digest",
      [
        { id: "m", type: "email", template: { subject: "S", text: "T" } },
        { id: "s", type: "sms", template: { body: "B" } },
      ],
    ],
  ] as const) {
    expect((await api("POST", "/v1/workflows", { key, name, description: `About ${name.toLowerCase()}`, steps })).status).toBe(201);
  }
  expect((await api("POST", "/sub", { subscriberId, email: `${subscriberId}@example.com` })).status).toBe(201);
  const link = await api<{ url: string }>("POST", `/v1/subscribers/${subscriberId}/preference-link`);
  pagePath = new URL(link.body.url).pathname;

  const german = { allNotifications: "Alle Benachrichtigungen", channelSms: "SMS", save: "Speichern", saved: "Gespeichert." };
  expect((await api("PATCH", "/v1/preference-links/settings", { translations: { de: german } })).status).toBe(200);
  expect((await api("POST", "/sub", { subscriberId: `${subscriberId}-de`, locale: "de-CH" })).status).toBe(201);
  const germanLink = await api<{ url: string }>("POST", `/v1/subscribers/${subscriberId}-de/preference-link`);
  germanPath = new URL(germanLink.body.url).pathname;
});

afterAll(async () => {
  await browser?.close();
});

/** The `/u` path in the one email of a workflow named `name`, sent to the page's subscriber. */
async function unsubscribePathOf(name: string): Promise<string> {
  const key = `leave-${run}`;
  const step = { id: "m", type: "email", template: { subject: "S", text: "Leave: {{ unsubscribe_url }}" } };
  expect((await api("POST", "/v1/workflows", { key, name, steps: [step] })).status).toBe(201);
  const sent = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow: key, to: subscriberId, payload: {} });
  expect(sent.status).toBe(202);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = await api<{ data: { id: string; status: string }[] }>("GET", `/v1/messages?transactionId=${sent.body.transactionId}`);
    const message = list.body.data.find((m) => m.status === "sent");
    if (message) {
      const detail = await api<{ content: { text: string } }>("GET", `/v1/messages/${message.id}`);
      return new URL(/Leave: (\S+)/.exec(detail.body.content.text)![1]!).pathname;
    }
    if (Date.now() > deadline) throw new Error("the email was not sent");
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!CHROMIUM)("the hosted preference page in Chromium", () => {
  it("is set in the page's sans-serif fonts, not the browser's serif default", async () => {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base()}${pagePath}`);
    const font = (await page.evaluate("getComputedStyle(document.body).fontFamily")) as string;
    expect(font).toContain("system-ui");
    expect(font).toContain('"Segoe UI"');
    expect(font.split(",")[0]!.trim()).not.toMatch(/serif/i);
    await context.close();
  });

  it.each([1280, 390])("at %i px has no WCAG A/AA violation and no sideways scrolling", async (width) => {
    // axe is a script, which the page's CSP forbids: this context alone lets the test inject it.
    const context = await browser!.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${base()}${pagePath}`);
    await page.addScriptTag({ path: AXE });
    const result = (await page.evaluate(
      "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
    )) as AxeResult;
    expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
    await context.close();
  });

  it("saves with JavaScript disabled, by keyboard", async () => {
    const context = await browser!.newContext({ viewport: { width: 390, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base()}${pagePath}`);
    const sms = page.getByRole("group", { name: "All notifications" }).getByLabel("Text messages (SMS)");
    expect(await sms.isChecked()).toBe(true);
    await sms.focus();
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Save preferences" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("Your choices are saved.").waitFor();
    expect(await page.getByRole("group", { name: "All notifications" }).getByLabel("Text messages (SMS)").isChecked()).toBe(false);
    const prefs = await api<{ channels: Record<string, boolean> }>("GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(prefs.body.channels).toEqual({ email: true, sms: false, push: true, chat: true, in_app: true });
    await context.close();
  });

  it("speaks the subscriber's locale where the environment translated it, and saves in it", async () => {
    const context = await browser!.newContext({ viewport: { width: 390, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base()}${germanPath}`);
    expect(await page.getAttribute("html", "lang")).toBe("de");
    const sms = page.getByRole("group", { name: "Alle Benachrichtigungen" }).getByLabel("SMS", { exact: true });
    await sms.uncheck();
    await page.getByRole("button", { name: "Speichern" }).click();
    await page.getByText("Gespeichert.").waitFor();
    // Texts the environment left out stay English.
    expect(await page.getByLabel("Push notifications").first().isChecked()).toBe(true);
    const prefs = await api<{ channels: Record<string, boolean> }>("GET", `/v1/subscribers/${subscriberId}-de/preferences`);
    expect(prefs.body.channels.sms).toBe(false);
    await context.close();
  });
});

describe.skipIf(!CHROMIUM)("the hosted unsubscribe page in Chromium", () => {
  it("names the workflow and the brand, in the page's fonts, and unsubscribes with its button", async () => {
    const path = await unsubscribePathOf("Release notes");
    expect((await api("PATCH", "/v1/preference-links/settings", { brandName: "Acme" })).status).toBe(200);
    const context = await browser!.newContext({ viewport: { width: 390, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${base()}${path}`);
    await page.getByText("Stop receiving “Release notes” emails from Acme?", { exact: true }).waitFor();
    expect(await page.title()).toBe("Unsubscribe · Acme");
    expect(await page.getByText("development").count()).toBe(0);
    const font = (await page.evaluate("getComputedStyle(document.body).fontFamily")) as string;
    expect(font).toContain("system-ui");
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await page.getByRole("heading", { name: "You are unsubscribed" }).waitFor();
    const prefs = await api<{ workflows: Record<string, { email?: boolean }> }>("GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(prefs.body.workflows[`leave-${run}`]).toEqual({ email: false });
    await context.close();
  });
});
