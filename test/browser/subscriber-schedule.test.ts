import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The subscriber page's Delivery schedule card: the schedule Novu's Inbox calls "Schedule",
// edited in the dashboard and read back through the API.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const subscriberId = `sched-${run}`;
const preferencesOf = async () => (await api<{ schedule: unknown }>("GET", `/v1/subscribers/${subscriberId}/preferences`)).body.schedule;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  expect((await api("POST", "/sub", { subscriberId, email: `${subscriberId}@example.com`, timezone: "Europe/Zurich" })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the subscriber's Delivery schedule", () => {
  it("adds a schedule, edits its days and windows, saves it, and shows it after a reload", async () => {
    await signIn(page, `/subscribers/${subscriberId}`);
    const card = page.getByRole("region", { name: "Delivery schedule" });
    await card.getByText("No schedule: messages go out at any time").waitFor();
    expect(await card.textContent()).toContain("Europe/Zurich");
    await card.getByRole("button", { name: "Add a schedule" }).click();
    // Office hours on weekdays to start with; Friday off, Saturday mornings on, Monday with a second window.
    await card.getByRole("checkbox", { name: "Friday" }).uncheck();
    await card.getByRole("checkbox", { name: "Saturday" }).check();
    await card.getByLabel("Saturday window 1 from").fill("10:00");
    await card.getByLabel("Saturday window 1 to").fill("12:30");
    await card.locator('tr[data-day="mon"]').getByRole("button", { name: "Add hours" }).click();
    await card.getByLabel("Monday window 2 from").fill("22:00");
    await card.getByLabel("Monday window 2 to").fill("01:00");
    await screenshot(page, "subscriber-schedule");
    await card.getByRole("button", { name: "Save schedule" }).click();
    await card.getByRole("status").getByText("Saved.").waitFor();

    const office = { enabled: true, hours: [{ start: "09:00", end: "17:00" }] };
    expect(await preferencesOf()).toEqual({
      enabled: true,
      days: {
        mon: { enabled: true, hours: [...office.hours, { start: "22:00", end: "01:00" }] },
        tue: office,
        wed: office,
        thu: office,
        fri: { ...office, enabled: false },
        sat: { enabled: true, hours: [{ start: "10:00", end: "12:30" }] },
      },
    });

    await page.reload();
    const reloaded = page.getByRole("region", { name: "Delivery schedule" });
    expect(await reloaded.getByLabel("Saturday window 1 to").inputValue()).toBe("12:30");
    expect(await reloaded.getByRole("checkbox", { name: "Friday" }).isChecked()).toBe(false);
    // The change is on the subscriber's timeline, in words.
    await page
      .getByText(/schedule on: Mon 09:00–17:00, 22:00–01:00/)
      .first()
      .waitFor();
  });

  it("turns the schedule off, shows the API's refusal of a window that ends when it starts, then removes it", async () => {
    // Signed in by the test before.
    await page.goto(`${base()}/dashboard/subscribers/${subscriberId}`);
    const card = page.getByRole("region", { name: "Delivery schedule" });
    await card.getByLabel("Tuesday window 1 to").fill("09:00");
    await card.getByRole("button", { name: "Save schedule" }).click();
    await card.getByRole("alert").getByText("`start` and `end` must differ.").waitFor();
    await card.getByLabel("Tuesday window 1 to").fill("17:00");

    await card.getByRole("checkbox", { name: "Hold messages outside the schedule" }).uncheck();
    await card.getByRole("button", { name: "Save schedule" }).click();
    await card.getByRole("status").getByText("Saved.").waitFor();
    expect(await preferencesOf()).toMatchObject({ enabled: false, days: { tue: { enabled: true } } });

    await card.getByRole("button", { name: "Remove schedule" }).click();
    await card.getByRole("button", { name: "Save schedule" }).click();
    await card.getByText("No schedule: messages go out at any time").waitFor();
    expect(await preferencesOf()).toBeNull();
  });
});
