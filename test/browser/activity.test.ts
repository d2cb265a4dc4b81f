import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn, confirmDialog } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const NOTIFY = `activity-notify-${run}`;
const REMIND = `activity-remind-${run}`;
const person = (id: string) => ({ subscriberId: `${id}-${run}`, email: "ada@example.com", phone: "+41791234567" });

interface Message {
  id: string;
  stepId: string;
  status: string;
}

async function trigger(workflow: string, to: unknown): Promise<string> {
  const res = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow, to, payload: {} });
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

const messagesOf = async (transactionId: string) =>
  (await api<{ data: Message[] }>("GET", `/v1/messages?transactionId=${encodeURIComponent(transactionId)}`)).body.data;

beforeAll(async () => {
  if (!CHROMIUM) return;
  for (const body of [
    {
      key: NOTIFY,
      name: "Notify",
      steps: [
        { id: "mail", type: "email", template: { subject: "Your order shipped", text: "Hello" } },
        { id: "text", type: "sms", template: { body: "Your order shipped" } },
      ],
    },
    {
      key: REMIND,
      name: "Remind",
      steps: [
        { id: "mail", type: "email", template: { subject: "Welcome", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "Still there?" } },
      ],
    },
  ]) {
    expect((await api("POST", "/v1/workflows", body)).status).toBe(201);
  }
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Activity pages", () => {
  let notifyTxn: string;

  it("shows both messages of a trigger made through the API without a reload", async () => {
    await signIn(page, "/activity");
    await page.getByRole("region", { name: "Messages" }).waitFor();
    await page.locator('[data-live="live"]').waitFor();
    // Survives only as long as the document does: a reload would clear it.
    await page.evaluate(() => Object.assign(window, { activityMarker: true }));

    notifyTxn = await trigger(NOTIFY, person("ada"));
    const rows = page.locator(`tr[data-transaction="${notifyTxn}"]`);
    await rows
      .filter({ has: page.locator('[data-status="sent"]') })
      .nth(1)
      .waitFor({ timeout: 30_000 });
    expect((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-step")))).sort()).toEqual(["mail", "text"]);
    expect(await page.evaluate(() => (window as unknown as { activityMarker?: boolean }).activityMarker)).toBe(true);
    await screenshot(page, "activity-messages");
  });

  it("words the empty filters as what they mean, set apart from typed values", async () => {
    const filters = page.getByRole("form", { name: "Filters" });
    const placeholders = await filters.locator('input[type="search"]').evaluateAll((inputs) =>
      inputs.map((input) => ({
        text: (input as HTMLInputElement).placeholder,
        style: getComputedStyle(input, "::placeholder").fontStyle,
      })),
    );
    expect(placeholders.map((p) => p.text)).toEqual([
      "Any workflow (key)",
      "Any subscriber (id)",
      "Any transaction (id)",
      "Any provider (id)",
      "Any tenant (id)",
    ]);
    expect(placeholders.every((p) => p.style === "italic")).toBe(true);
  });

  it("filters by channel, with the filter in the link", async () => {
    await page.getByLabel("Channel").selectOption("sms");
    await page.locator(`tr[data-transaction="${notifyTxn}"][data-step="mail"]`).waitFor({ state: "detached" });
    await page.locator(`tr[data-transaction="${notifyTxn}"][data-step="text"]`).waitFor();
    expect(new URL(page.url()).searchParams.get("channel")).toBe("sms");

    // The same link, opened afresh, shows the same filtered view.
    await page.goto(page.url());
    expect(await page.getByLabel("Channel").inputValue()).toBe("sms");
    await page.locator(`tr[data-transaction="${notifyTxn}"][data-step="text"]`).waitFor();
    expect(await page.locator(`tr[data-transaction="${notifyTxn}"][data-step="mail"]`).count()).toBe(0);

    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No failed messages.").waitFor();

    // From the keyboard: a choice applies at once and the control keeps the focus.
    await page.getByLabel("Status").focus();
    await page.keyboard.press("ArrowDown");
    await page.waitForURL((url) => url.searchParams.get("status") === "bounced");
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.labels?.[0]?.textContent)).toContain("Status");
    await page.getByLabel("Channel").selectOption("");
    await page.getByLabel("Status").selectOption("");
  });

  it("shows a message with its timeline", async () => {
    await page.goto(page.url().replace(/\/activity.*$/, `/activity?transactionId=${encodeURIComponent(notifyTxn)}`));
    const mail = page.locator(`tr[data-transaction="${notifyTxn}"][data-step="mail"]`);
    await mail.getByRole("link").click();
    const timeline = page.getByTestId("timeline");
    await timeline.waitFor();
    await timeline.locator('li[data-status="sent"]').waitFor();
    expect(await page.locator("h1").textContent()).toBe("Your order shipped");
    expect(await page.locator("dl.facts").textContent()).toContain("sandbox-email");
    // Each step in lines a person reads, its JSON behind a toggle.
    const sent = timeline.locator('li[data-status="sent"]');
    const lines = (status: string) =>
      timeline
        .locator(`li[data-status="${status}"] .event-lines > div`)
        .evaluateAll((rows) => rows.map((row) => `${row.querySelector("dt")?.textContent} ${row.querySelector("dd")?.textContent}`));
    expect(await lines("sent")).toEqual(["Provider sandbox-email", expect.stringMatching(/^Provider's id \S+$/)]);
    expect(await lines("sending")).toEqual(["Attempt 1"]);
    expect(await sent.locator("pre").isVisible()).toBe(false);
    await sent.getByText("JSON").click();
    expect(JSON.parse((await sent.locator("pre").textContent()) ?? "")).toMatchObject({ provider: "sandbox-email" });
    // Workflow and subscriber lead to their own pages.
    const facts = page.locator("dl.facts");
    expect(await facts.getByRole("link", { name: NOTIFY }).getAttribute("href")).toMatch(new RegExp(`/workflows/${NOTIFY}$`));
    expect(await facts.getByRole("link", { name: `ada-${run}` }).getAttribute("href")).toMatch(new RegExp(`/subscribers/ada-${run}$`));
    await screenshot(page, "activity-message");
  });

  it("shows what a delayed trigger waits on and until when, and cancels it", async () => {
    const to = person("bob");
    const transactionId = await trigger(REMIND, to);
    await until("the email before the delay to be sent", async () =>
      (await messagesOf(transactionId)).some((m) => m.stepId === "mail" && m.status === "sent"),
    );

    await page.goto(page.url().replace(/\/activity\/.*$/, "/activity?tab=triggers"));
    const row = page.locator(`tr[data-transaction="${transactionId}"]`);
    await row.waitFor({ timeout: 30_000 });
    await row.getByRole("link").click();

    const recipient = page.locator(`[data-recipient="${to.subscriberId}"]`);
    const waiting = recipient.locator('[data-step="wait"] [data-waiting="delay"]');
    await waiting.waitFor({ timeout: 30_000 });
    const until_ = Date.parse((await waiting.locator("time").getAttribute("datetime")) ?? "");
    expect(until_).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(await waiting.textContent()).toContain("delay until");
    // The messages are asked for apart from the trigger's status: the sent email may show a moment later.
    await recipient.locator('[data-step="mail"] [data-status="sent"]').waitFor();
    await screenshot(page, "activity-trigger-waiting");

    await page.getByRole("button", { name: "Cancel trigger" }).click();
    await confirmDialog(page);
    await page.getByTestId("trigger-status").locator('[data-status="cancelled"]').waitFor();
    await recipient.locator('[data-step="text"] [data-status="cancelled"]').waitFor({ timeout: 30_000 });
    expect(await page.getByRole("button", { name: "Cancel trigger" }).count()).toBe(0);
    await screenshot(page, "activity-trigger-cancelled");

    const text = (await messagesOf(transactionId)).find((m) => m.stepId === "text");
    expect(text?.status).toBe("cancelled");
    const status = await api<{ status: string; waitingTotal: number }>("GET", `/v1/trigger/${transactionId}`);
    expect(status.body).toMatchObject({ status: "cancelled", waitingTotal: 0 });
  });

  it("shows a trigger's payload, actor and overrides, and links each of its messages", async () => {
    const res = await api<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: NOTIFY,
      to: person("cid"),
      payload: { orderId: `P-${run}` },
      actor: `boss-${run}`,
      overrides: { email: { subject: "Overridden subject" } },
    });
    expect(res.status).toBe(202);
    const transactionId = res.body.transactionId;
    await page.goto(page.url().replace(/\/activity.*$/, `/activity/triggers/${encodeURIComponent(transactionId)}`));
    await page.getByTestId("trigger-payload").getByText(`P-${run}`, { exact: false }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("trigger-actor").textContent()).toContain(`boss-${run}`);
    await page.getByText("Overrides").click();
    expect(await page.getByTestId("trigger-overrides").textContent()).toContain("Overridden subject");
    const mail = page.locator(`[data-recipient="cid-${run}"] [data-step="mail"]`);
    await mail.locator('[data-status="sent"]').waitFor({ timeout: 30_000 });
    await mail.getByRole("link", { name: "Message of step mail" }).click();
    await page.getByTestId("timeline").waitFor();
    expect(await page.locator("h1").textContent()).toBe("Overridden subject");
  });

  it("triggers a workflow for a topic, and a broadcast, from the dashboard", async () => {
    const topic = `activity-topic-${run}`;
    expect((await api("POST", "/v1/topics", { key: topic, name: "Activity readers" })).status).toBe(201);
    expect((await api("POST", "/sub", person("dee"))).status).toBeLessThan(300);
    expect((await api("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: [`dee-${run}`] })).status).toBeLessThan(300);

    await page.goto(page.url().replace(/\/activity.*$/, "/activity"));
    await page.getByRole("link", { name: "New trigger" }).click();
    const form = page.getByRole("form", { name: "New trigger" });
    await form.getByLabel("Workflow").selectOption(NOTIFY);
    await form.getByLabel("A topic").check();
    await form.getByLabel("Topic", { exact: true }).selectOption(topic);
    await form.getByLabel("Payload (JSON)").fill(`{ "via": "topic-${run}" }`);
    await form.getByRole("button", { name: "Trigger", exact: true }).click();
    await page.waitForURL(/\/activity\/triggers\//);
    await page.locator(`[data-recipient="dee-${run}"]`).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("trigger-payload").textContent()).toContain(`topic-${run}`);

    await page.goto(page.url().replace(/\/activity.*$/, "/activity/new"));
    await form.getByLabel("Workflow").selectOption(NOTIFY);
    await form.getByLabel("Everyone (broadcast)").check();
    await form.getByRole("button", { name: "Broadcast" }).click();
    await page.waitForURL(/\/activity\/triggers\//);
    await page.locator(`[data-recipient="dee-${run}"]`).waitFor({ timeout: 30_000 });
  });

  it("shows neutral, green and every other badge at WCAG AA contrast (4.5:1)", async () => {
    await page.goto(page.url().replace(/\/activity.*$/, "/activity"));
    await page.locator('tbody .badge[data-status="sent"]').first().waitFor();
    await page.locator('tbody .badge[data-status="cancelled"]').first().waitFor();
    const ratios = await page.evaluate(() => {
      const luminance = (css: string) => {
        const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
          const c = Number(v) / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const seen: Record<string, number> = {};
      for (const badge of Array.from(document.querySelectorAll<HTMLElement>(".badge"))) {
        const style = getComputedStyle(badge);
        const [a, b] = [luminance(style.color), luminance(style.backgroundColor)];
        seen[badge.className] = Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 100) / 100;
      }
      return seen;
    });
    expect(Object.keys(ratios)).toEqual(expect.arrayContaining(["badge", "badge ok"]));
    for (const [kind, ratio] of Object.entries(ratios))
      expect({ kind, ratio }).toEqual({ kind, ratio: expect.toSatisfy((r: number) => r >= 4.5) });
  });

  it("charts sent messages by channel, and by provider", async () => {
    await page.goto(page.url().replace(/\/activity.*$/, "/activity?tab=charts"));
    const email = page.locator('.stats-totals tr[data-group="email"] [data-metric="sent"]');
    await email.waitFor();
    expect(Number(await email.textContent())).toBeGreaterThanOrEqual(2);
    expect(await page.locator('[data-chart="sms"] canvas').count()).toBe(1);
    await screenshot(page, "activity-charts");
    // The choice lives in the address: the radio turns checked once the navigation re-renders it, not at the click.
    await page.getByLabel("provider").click();
    await expect.poll(() => page.getByLabel("provider").isChecked()).toBe(true);
    await page.locator('.stats-totals tr[data-group="sandbox-sms"]').waitFor();
    expect(new URL(page.url()).searchParams.get("groupBy")).toBe("provider");
  });

  it("charts one tenant's messages when the Tenant filter names it", async () => {
    const tenant = `t-${run}`;
    expect((await api("POST", "/v1/tenants", { id: tenant, name: "Charted" })).status).toBe(201);
    const res = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow: NOTIFY, to: person("tia"), payload: {}, tenant });
    expect(res.status).toBe(202);
    await until("the tenant's email sent", async () =>
      (await messagesOf(res.body.transactionId)).some((m) => m.stepId === "mail" && m.status === "sent") ? true : undefined,
    );
    await page.goto(page.url().replace(/\/activity.*$/, "/activity?tab=charts&groupBy=channel"));
    const email = page.locator('.stats-totals tr[data-group="email"] [data-metric="sent"]');
    await email.waitFor();
    const all = Number(await email.textContent());
    expect(all).toBeGreaterThanOrEqual(3);
    // Typed in the filter bar, applied when the field is left: the tenant lives in the address.
    await page.getByRole("searchbox", { name: "Tenant" }).fill(tenant);
    await page.getByRole("searchbox", { name: "Tenant" }).press("Enter");
    await expect.poll(() => new URL(page.url()).searchParams.get("tenant")).toBe(tenant);
    await expect.poll(async () => Number(await email.textContent())).toBe(1);
    // The Tenants pages' test lists the environment's tenants: this one goes with its test.
    expect((await api("DELETE", `/v1/tenants/${tenant}`)).status).toBeLessThan(300);
  });

  it("fits a 390 px phone", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, `/activity?transactionId=${encodeURIComponent(notifyTxn)}`);
    await phone.locator(`tr[data-transaction="${notifyTxn}"]`).first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    // Each message is a card: subscriber, channel, to and subject are all on the screen, none clipped away.
    const row = phone.locator(`tr[data-transaction="${notifyTxn}"][data-step="mail"]`);
    for (const label of ["Subscriber", "Channel", "To", "Subject"]) {
      const cell = row.locator(`td[data-label="${label}"]`);
      expect(await cell.isVisible()).toBe(true);
      const box = await cell.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    expect(await row.locator('td[data-label="Subscriber"]').textContent()).toContain(`ada-${run}`);
    await screenshot(phone, "activity-390");
    await phone.goto(phone.url().replace(/\/activity.*$/, "/activity?tab=charts"));
    await phone.locator("[data-chart] canvas").first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "activity-charts-390");
    await phone.close();
  });
});
