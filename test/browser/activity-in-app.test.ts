import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../local-stack";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

// Activity shows an in-app message's Inbox life: delivered when stored, then seen, read and
// archived as its tracking events, whether the change came from the browser or the server API.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const WORKFLOW = `activity-bell-${run}`;
const SUBSCRIBER = `activity-bell-reader-${run}`;

interface Message {
  id: string;
  channel: string;
  status: string;
  events: { status: string }[];
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  const workflow = {
    key: WORKFLOW,
    name: "Bell",
    steps: [{ id: "bell", type: "in_app", template: { subject: "Hi", body: "Your report is ready" } }],
  };
  expect((await api("POST", "/v1/workflows", workflow)).status).toBe(201);
  expect((await api("POST", "/sub", { subscriberId: SUBSCRIBER })).status).toBeLessThan(300);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("Activity for in-app messages", () => {
  it("shows the seen, read and archived tracking events in the message's timeline", async () => {
    const accepted = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow: WORKFLOW, to: SUBSCRIBER, payload: {} });
    expect(accepted.status).toBe(202);
    const message = await until("the in-app message delivered", async () => {
      const list = await api<{ data: Message[] }>("GET", `/v1/messages?transactionId=${accepted.body.transactionId}`);
      return list.body.data.find((m) => m.status === "delivered");
    });
    expect(message.channel).toBe("in_app");
    const change = (body: unknown) => api("PATCH", `/v1/subscribers/${SUBSCRIBER}/notifications/${message.id}`, body);
    expect((await change({ read: true })).status).toBe(200);
    expect((await change({ archived: true })).status).toBe(200);

    await signIn(page, `/activity/messages/${message.id}`);
    const timeline = page.getByTestId("timeline");
    for (const status of ["delivered", "seen", "read", "archived"]) await timeline.locator(`li[data-status="${status}"]`).waitFor();
    const order = await timeline.locator("li").evaluateAll((items) => items.map((li) => li.getAttribute("data-status")));
    expect(order.indexOf("delivered")).toBeLessThan(order.indexOf("read"));
    // Read and archived are things the subscriber did, shown as outcomes rather than neutral grey.
    expect(await timeline.locator('li[data-status="read"] .badge').getAttribute("class")).toContain("ok");
    await screenshot(page, "activity-in-app-message");
  });

  it("charts the archived message as sent, delivered, seen, read and archived, as counting the timelines gives", async () => {
    // What counting every in-app message of the last day by its timeline gives (nothing else runs
    // against this stack while this file does, so the figures hold still).
    const since = new Date(Date.now() - 23 * 3_600_000).toISOString();
    const list: Message[] = [];
    for (let cursor: string | null = ""; cursor !== null; ) {
      const listed: { body: { data: Message[]; nextCursor: string | null } } = await api<{ data: Message[]; nextCursor: string | null }>(
        "GET",
        `/v1/messages?channel=in_app&since=${since}&limit=200${cursor ? `&cursor=${cursor}` : ""}`,
      );
      list.push(...listed.body.data);
      cursor = listed.body.nextCursor;
    }
    const implied: Record<string, string[]> = {
      sent: ["sent"],
      delivered: ["sent", "delivered"],
      seen: ["sent", "delivered", "seen"],
      read: ["sent", "delivered", "seen", "read"],
      archived: ["sent", "delivered", "archived"],
    };
    const expected = { sent: 0, delivered: 0, seen: 0, read: 0, archived: 0 };
    for (const { id } of list) {
      const message = (await api<Message>("GET", `/v1/messages/${id}`)).body;
      const reached = new Set([message.status, ...message.events.map((e) => e.status)].flatMap((s) => implied[s] ?? []));
      for (const figure of Object.keys(expected) as (keyof typeof expected)[]) if (reached.has(figure)) expected[figure] += 1;
    }
    expect(expected.archived).toBeGreaterThanOrEqual(1);
    expect(expected.delivered).toBe(list.length);

    await page.goto(page.url().replace(/\/activity.*$/, "/activity?tab=charts&range=24h"));
    const row = page.locator('.stats-totals tr[data-group="in_app"]');
    await row.waitFor();
    const shown = Object.fromEntries(
      await Promise.all(
        Object.keys(expected).map(async (figure) => [figure, Number(await row.locator(`[data-metric="${figure}"]`).textContent())]),
      ),
    );
    expect(shown).toEqual(expected);
    expect(await page.locator('[data-chart="in_app"] canvas').count()).toBe(1);
    await screenshot(page, "activity-charts-in-app");
  });

  it("lists in-app messages under the in-app channel, with their current Inbox status", async () => {
    await page.goto(page.url().replace(/\/activity.*$/, `/activity?tab=messages&channel=in_app&workflow=${WORKFLOW}`));
    const row = page.locator("tbody tr").first();
    await row.waitFor();
    expect(await row.locator('[data-status="archived"]').count()).toBe(1);
    // The channel in words, not its API key.
    expect(await row.locator('[data-label="Channel"]').textContent()).toMatch(/^In-app/);
    expect(await row.getByText("in_app").count()).toBe(0);
    expect(await page.getByLabel("Channel").locator("option:checked").textContent()).toBe("In-app");
  });
});
