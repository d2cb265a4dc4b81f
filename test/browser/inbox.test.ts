import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { until } from "../local-stack";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The Inbox page: Novu's own <Inbox/> (@novu/react 3.19.2) for a subscriber of the development
// environment, against this Clarion's /novu/v1/inbox routes and its /novu/socket.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const WORKFLOW = `inbox-page-${run}`;
const SUBSCRIBER = `inbox-reader-${run}`;

async function trigger(order: string): Promise<void> {
  const res = await api("POST", "/v1/trigger", { workflow: WORKFLOW, to: SUBSCRIBER, payload: { order } });
  expect(res.status).toBe(202);
}

/** The server feed's notifications of the subscriber (what the Inbox lists over HTTP). */
const feed = async () =>
  (await api<{ data: { body: string }[] }>("GET", `/v1/subscribers/${SUBSCRIBER}/notifications`)).body.data.map((n) => n.body);

beforeAll(async () => {
  if (!CHROMIUM) return;
  const workflow = {
    key: WORKFLOW,
    name: "Inbox page",
    steps: [
      { id: "bell", type: "in_app", template: { subject: "Order {{ payload.order }}", body: "Order {{ payload.order }} has shipped" } },
    ],
  };
  expect((await api("POST", "/v1/workflows", workflow)).status).toBe(201);
  expect((await api("POST", "/sub", { subscriberId: SUBSCRIBER, firstName: "Ines" })).status).toBeLessThan(300);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Inbox page", () => {
  it("opens Novu's Inbox for the chosen subscriber, listing a notification stored before", async () => {
    await trigger("A-1");
    await until("the notification in the feed", async () => ((await feed()).includes("Order A-1 has shipped") ? true : undefined));
    await signIn(page, "/inbox");
    await page.getByRole("heading", { name: "Inbox", exact: true }).waitFor();
    await page.getByLabel("Subscriber id").fill(SUBSCRIBER);
    await page.getByRole("button", { name: "Open Inbox" }).click();
    expect(new URL(page.url()).searchParams.get("subscriber")).toBe(SUBSCRIBER);
    await page.getByTestId("inbox-preview").getByText("Order A-1 has shipped").waitFor();
    await screenshot(page, "inbox");
    const environmentPage = page.getByRole("link", { name: "the environment page" });
    expect(await environmentPage.getAttribute("href")).toBe("/dashboard/env/development/environments/development");
  });

  it("shows a new notification without a reload", async () => {
    await trigger("B-2");
    await page.getByTestId("inbox-preview").getByText("Order B-2 has shipped").waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("inbox-preview").getByText("Order A-1 has shipped").isVisible()).toBe(true);
  });

  it("leaves Novu's notifications without the dashboard's link underline on hover", async () => {
    const item = page.getByTestId("inbox-preview").getByText("Order A-1 has shipped");
    await item.hover();
    const underlined = await item.evaluate((el) => {
      for (let node: Element | null = el; node; node = node.parentElement) {
        if (getComputedStyle(node).textDecorationLine.includes("underline")) return true;
      }
      return false;
    });
    expect(underlined).toBe(false);
  });

  it("fits Novu's Inbox on a 390 px screen: nothing above it or beside it", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, `/inbox?subscriber=${SUBSCRIBER}`);
    const item = phone.getByTestId("inbox-preview").getByText("Order A-1 has shipped");
    await item.waitFor();
    await screenshot(phone, "inbox-390");
    const box = (await item.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.close();
  });

  it("opens a tenant's Inbox (Novu's context and its hash): only that tenant's notifications", async () => {
    const tenant = `inbox-tenant-${run}`;
    expect((await api("POST", "/v1/tenants", { id: tenant, name: "Inbox Tenant" })).status).toBe(201);
    const res = await api("POST", "/v1/trigger", { workflow: WORKFLOW, to: SUBSCRIBER, payload: { order: "T-9" }, tenant });
    expect(res.status).toBe(202);
    const scoped = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(scoped, "/inbox");
    await scoped.getByLabel("Subscriber id").fill(SUBSCRIBER);
    await scoped.getByLabel("Tenant (optional)").fill(tenant);
    await scoped.getByRole("button", { name: "Open Inbox" }).click();
    expect(new URL(scoped.url()).searchParams.get("tenant")).toBe(tenant);
    await scoped.getByTestId("inbox-preview").getByText("Order T-9 has shipped").waitFor({ timeout: 20_000 });
    expect(await scoped.getByTestId("inbox-preview").getByText("Order A-1 has shipped").count()).toBe(0);
    await scoped.close();
    // Without a tenant, the same subscriber's Inbox leaves the tenant's notification out.
    expect(await page.getByTestId("inbox-preview").getByText("Order T-9 has shipped").count()).toBe(0);
  });

  it("says so when the subscriber does not exist, and opens no Inbox for it", async () => {
    await page.getByLabel("Subscriber id").fill(`nobody-${run}`);
    await page.getByRole("button", { name: "Open Inbox" }).click();
    await page.getByRole("alert").getByText("Subscriber not found").waitFor();
    expect(await page.getByTestId("inbox-preview").count()).toBe(0);
    expect((await api("GET", `/v1/subscribers/nobody-${run}`)).status).toBe(404);
  });

  it("runs in the development environment only", async () => {
    const other = await browser!.newPage();
    await signIn(other, "/inbox", inject("productionKey"));
    await other.getByTestId("inbox-development-only").waitFor();
    expect(await other.getByLabel("Subscriber id").count()).toBe(0);
    await other.close();
  });
});
