import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn } from "./browser";

// One subscriber's whole life in the dashboard: found by search, a message sent through the API,
// preferences and profile edited and read back through the API, then erased.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const subscriberId = `ada-${run}`;
const workflow = `welcome-${run}`;
const path = `/v1/subscribers/${subscriberId}`;

type Preferences = { channels: Record<string, boolean>; workflows: Record<string, Record<string, boolean>>; quietHours: unknown };
type Message = { id: string; status: string };

async function firstMessage(): Promise<Message> {
  for (let i = 0; i < 60; i++) {
    const { body } = await api<{ data: Message[] }>("GET", `/v1/messages?subscriberId=${subscriberId}`);
    if (body.data[0]) return body.data[0];
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the trigger made no message");
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const wf = await api("POST", "/v1/workflows", {
    key: workflow,
    name: "Welcome",
    steps: [{ id: "email-1", type: "email", template: { subject: "Welcome, {{ subscriber.firstName }}", text: "Hello" } }],
  });
  expect(wf.status).toBe(201);
  const sub = await api("POST", "/sub", { subscriberId, email: `ada-${run}@example.com`, firstName: "Ada", lastName: `Lovelace${run}` });
  expect(sub.status).toBe(201);
  expect((await api("POST", "/v1/topics", { key: `beta-${run}`, name: "Beta testers" })).status).toBe(201);
  expect((await api("POST", `/v1/topics/beta-${run}/subscribers`, { subscriberIds: [subscriberId] })).status).toBe(200);
  // Someone the searches below must leave out.
  expect((await api("POST", "/sub", { subscriberId: `grace-${run}`, firstName: "Grace", lastName: "Hopper" })).status).toBe(201);
  const trigger = await api("POST", "/v1/trigger", { workflow, to: subscriberId, payload: {} });
  expect(trigger.status).toBe(202);
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Subscribers pages", () => {
  it("finds a subscriber by part of their name and opens the detail", async () => {
    await signIn(page, "/subscribers");
    await page.getByLabel("Search").fill(`lovelace${run}`);
    const row = page.locator(`tr[data-subscriber="${subscriberId}"]`);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    await row.waitFor();
    await page.getByLabel("Search").fill(`nobody-${run}`);
    await page.getByText("No subscriber matches.").waitFor();
    await page.getByLabel("Search").fill(`ada-${run}@example.com`);
    await row.waitFor();
    await screenshot(page, "subscribers");

    await row.getByRole("link", { name: subscriberId }).click();
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    expect(page.url()).toContain(`/dashboard/env/development/subscribers/${subscriberId}`);
    expect(await page.locator("section", { has: page.getByRole("heading", { name: "Channel addresses" }) }).textContent()).toContain(
      `ada-${run}@example.com`,
    );
    const topic = page.getByRole("region", { name: "Topics" }).getByRole("link", { name: `beta-${run}` });
    expect(await topic.getAttribute("href")).toBe(`/dashboard/env/development/topics/beta-${run}`);
  });

  it("pages a long result with More", async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({ subscriberId: `many-${run}-${String(i).padStart(2, "0")}` }));
    const bulk = await api<{ created: string[] }>("POST", "/sub/bulk", { subscribers: many });
    expect(bulk.body.created).toHaveLength(60);
    await page.goBack();
    expect(await page.getByLabel("Search").inputValue()).toBe(`ada-${run}@example.com`);
    await page.locator(`tr[data-subscriber="${subscriberId}"]`).waitFor();
    await page.getByLabel("Search").fill(`many-${run}`);
    await expect.poll(() => page.locator("tbody tr").count()).toBe(50);
    await page.getByRole("button", { name: "More" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(60);
    expect(await page.getByRole("button", { name: "More" }).count()).toBe(0);
    await page.goForward();
    await page.getByRole("heading", { name: "Profile" }).waitFor();
  });

  it("lists their messages, each linking to Activity", async () => {
    const message = await firstMessage();
    await page.reload();
    const row = page.locator(`tr[data-message="${message.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain(workflow);
    expect(await row.getByRole("link").getAttribute("href")).toBe(`/dashboard/env/development/activity/messages/${message.id}`);
  });

  it("saves a per-workflow override and a channel opt-out, then takes the override off again", async () => {
    await page.getByLabel(`${workflow} email`).selectOption("off");
    await page.getByRole("checkbox", { name: "SMS", exact: true }).uncheck();
    await page.getByRole("button", { name: "Save preferences" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    let prefs = (await api<Preferences>("GET", `${path}/preferences`)).body;
    expect(prefs.workflows[workflow]).toEqual({ email: false });
    expect(prefs.channels).toEqual({ email: true, sms: false, push: true, chat: true, in_app: true });

    // The workflow sends email only: its row offers no other channel.
    const row = page.locator(`tr[data-workflow="${workflow}"]`);
    expect(await row.locator("select").count()).toBe(1);
    for (const channel of ["sms", "push", "chat", "in_app"]) expect(await page.getByLabel(`${workflow} ${channel}`).count()).toBe(0);
    await page.getByLabel(`${workflow} email`).selectOption("on");
    await page.getByRole("button", { name: "Save preferences" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    prefs = (await api<Preferences>("GET", `${path}/preferences`)).body;
    expect(prefs.workflows[workflow]).toEqual({ email: true });

    await page.getByRole("checkbox", { name: /quiet hours/ }).check();
    await page.getByLabel("From", { exact: true }).fill("21:30");
    await page.getByLabel("To", { exact: true }).fill("06:45");
    await page.getByRole("button", { name: "Save preferences" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    prefs = (await api<Preferences>("GET", `${path}/preferences`)).body;
    expect(prefs.quietHours).toEqual({ start: "21:30", end: "06:45" });
    await screenshot(page, "subscriber-detail");
  });

  it("shows those changes on the Activity card, newest first, with who made them", async () => {
    const activity = page.getByRole("region", { name: "Activity" });
    await activity.getByText("quiet hours 21:30–06:45").waitFor();
    const items = await activity.getByRole("listitem").allTextContents();
    expect(items[0]).toContain("Preferences changed by API: quiet hours 21:30–06:45");
    expect(items[1]).toContain(`${workflow}: Email on`);
    expect(items[2]).toContain(`SMS off; ${workflow}: Email off`);
    expect(items.at(-1)).toContain("Created through the API");
  });

  it("edits the profile, showing a bad email on its field", async () => {
    await page.getByRole("button", { name: "Edit profile" }).click();
    await page.getByRole("textbox", { name: "First name", exact: true }).fill("Augusta");
    await page.getByRole("textbox", { name: "Email", exact: true }).fill("not-an-email");
    await page.getByRole("button", { name: "Save profile" }).click();
    const email = page.getByRole("textbox", { name: "Email", exact: true });
    await page.locator('input[aria-invalid="true"]').waitFor();
    expect(await email.getAttribute("aria-invalid")).toBe("true");

    await email.fill("");
    await page.getByRole("textbox", { name: "Time zone", exact: true }).fill("Europe/London");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByRole("button", { name: "Edit profile" }).waitFor();
    const stored = await api<{ firstName: string; email: string | null; timezone: string; lastName: string }>("GET", path);
    expect(stored.body).toMatchObject({ firstName: "Augusta", email: null, timezone: "Europe/London", lastName: `Lovelace${run}` });
  });

  it("erases the subscriber only after the id is typed, then the API answers 404", async () => {
    await page.getByRole("button", { name: "Delete…" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("cannot be undone");
    const erase = dialog.getByRole("button", { name: "Erase subscriber" });
    expect(await erase.isDisabled()).toBe(true);
    await dialog.getByLabel("Type the subscriber id to confirm").fill(subscriberId);
    await erase.click();
    await page.getByRole("heading", { name: `Erased ${subscriberId}` }).waitFor();
    expect(await page.getByRole("status").textContent()).toMatch(/Messages redacted\s*1/);
    expect((await api("GET", path)).status).toBe(404);
  });

  it("says so when a subscriber does not exist", async () => {
    await page.goto(page.url().replace(/\/subscribers\/.*$/, `/subscribers/nobody-${run}`));
    const problem = page.locator(".problem");
    await problem.waitFor();
    expect(await problem.getAttribute("data-code")).toBe("subscriber_not_found");
  });

  it("fits a 390 px phone", async () => {
    const id = `phone-${run}`;
    await api("POST", "/sub", { subscriberId: id, email: `${id}@example.com`, firstName: "Grace", lastName: "Hopper" });
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/subscribers");
    await phone.getByLabel("Search").fill(id);
    await phone.locator(`tr[data-subscriber="${id}"]`).waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "subscribers-390");
    await phone.locator(`tr[data-subscriber="${id}"]`).getByRole("link").click();
    await phone.locator(`tr[data-workflow="${workflow}"]`).waitFor();
    await phone.getByText("No messages to this subscriber yet.").waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "subscriber-detail-390");
    await phone.close();
  });

  it("creates a subscriber from the dashboard, and refuses an id that is taken", async () => {
    await page.goto(`${base()}/dashboard/subscribers`);
    await page.getByRole("link", { name: "New subscriber" }).click();
    const form = page.getByRole("form", { name: "New subscriber" });
    await form.getByLabel("Subscriber id").fill(`new-${run}`);
    await form.getByLabel("Email").fill(`new-${run}@example.com`);
    await form.getByLabel("First name").fill("Katherine");
    await form.getByRole("button", { name: "Create subscriber" }).click();
    await page.waitForURL(new RegExp(`/subscribers/new-${run}$`));
    const stored = await api<{ email: string; firstName: string }>("GET", `/v1/subscribers/new-${run}`);
    expect(stored.body).toMatchObject({ email: `new-${run}@example.com`, firstName: "Katherine" });

    await page.goto(`${base()}/dashboard/subscribers/new`);
    await form.getByLabel("Subscriber id").fill(`new-${run}`);
    await form.getByLabel("First name").fill("Someone else");
    await form.getByRole("button", { name: "Create subscriber" }).click();
    await form.getByText("exists already").waitFor();
    expect((await api<{ firstName: string }>("GET", `/v1/subscribers/new-${run}`)).body.firstName).toBe("Katherine");
  });
});
