// The Analytics page over a seeded run of its own workflow (the page filtered to it, so what the
// other files of the suite send does not move its figures): the cards, filters kept in the
// address, a step's skip reasons and failures, the grouped errors, exports, a phone's width, and
// a table behind every chart.
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../local-stack";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const WORKFLOW = `analytics-${run}`;
const WITH_PHONE = `analytics-phone-${run}`;
const NO_PHONE = `analytics-mail-only-${run}`;
const SETTLED = new Set(["sent", "delivered", "failed", "bounced", "undeliverable", "skipped", "cancelled"]);

interface Message {
  id: string;
  stepId: string;
  status: string;
  error?: { code: string } | null;
}

/** The view of the seeded workflow over the last day. */
const VIEW = `/analytics?range=24h&workflow=${WORKFLOW}`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const workflow = {
    key: WORKFLOW,
    name: "Analytics run",
    steps: [
      {
        id: "welcome",
        type: "email",
        // Parses (so it saves) but fails when rendered for a payload that asks for it: the loop passes the render's limits.
        template: { subject: "Welcome", text: "{% if payload.broken %}{% for i in (1..100000000) %}{% endfor %}{% endif %}Hello" },
      },
      { id: "text", type: "sms", if: { field: "payload.sms", op: "eq", value: true }, template: { body: "Hello" } },
    ],
  };
  expect((await api("POST", "/v1/workflows", workflow)).status).toBe(201);
  expect((await api("POST", "/sub", { subscriberId: WITH_PHONE, email: "ada@example.com", phone: "+41791234567" })).status).toBeLessThan(
    300,
  );
  expect((await api("POST", "/sub", { subscriberId: NO_PHONE, email: "bob@example.com" })).status).toBeLessThan(300);
  // Three sent by both steps; one whose text has no phone to go to; one whose email fails and whose text's condition is false.
  const runs = [
    { to: WITH_PHONE, payload: { sms: true } },
    { to: WITH_PHONE, payload: { sms: true } },
    { to: WITH_PHONE, payload: { sms: true } },
    { to: NO_PHONE, payload: { sms: true } },
    { to: WITH_PHONE, payload: { broken: true, sms: false } },
  ];
  for (const body of runs) {
    const accepted = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow: WORKFLOW, ...body });
    expect(accepted.status).toBe(202);
    await until(`the messages of ${accepted.body.transactionId} settled`, async () => {
      const list = await api<{ data: Message[] }>("GET", `/v1/messages?transactionId=${accepted.body.transactionId}`);
      return list.body.data.length === 2 && list.body.data.every((m) => SETTLED.has(m.status)) ? true : undefined;
    });
  }
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
});

const card = (name: string) => page.locator(`[data-card="${name}"] [data-value]`);

describe.skipIf(!CHROMIUM)("the Analytics page", () => {
  it("shows the run's totals in the cards, with their change against the previous period", async () => {
    await signIn(page, VIEW);
    await page.getByRole("region", { name: "Overview" }).waitFor();
    await expect.poll(() => card("triggers").textContent()).toBe("5");
    expect(await card("sent").textContent()).toBe("7");
    expect(await card("failed").textContent()).toBe("1");
    // Nothing of this workflow before today: every count is new.
    expect(await page.locator('[data-card="sent"] [data-change]').textContent()).toContain("new");
    // 1 failed of 8 that were sent or failed.
    expect(await card("failureRate").textContent()).toBe("12.5%");
    // The same figures as the API's JSON for the same view.
    const overview = await api<{ current: { totals: Record<string, number> } }>(
      "GET",
      `/v1/analytics/overview?workflow=${WORKFLOW}&from=${new Date(Date.now() - 2 * 86_400_000).toISOString()}`,
    );
    expect(overview.body.current.totals).toMatchObject({ triggers: 5, sent: 7, failed: 1, skipped: 2 });
    expect(
      await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link", { name: "Analytics", exact: true })
        .getAttribute("aria-current"),
    ).toBe("page");
    await screenshot(page, "analytics");
  });

  it("keeps the filters in the address, so a reload (or a link) shows the same view", async () => {
    await page.getByLabel("Channel").selectOption("sms");
    await page.waitForURL((url) => url.searchParams.get("channel") === "sms");
    await page.getByLabel("Buckets").selectOption("hour");
    await page.waitForURL((url) => url.searchParams.get("granularity") === "hour");
    await expect.poll(() => card("sent").textContent()).toBe("3");
    const url = new URL(page.url());
    expect(url.searchParams.get("workflow")).toBe(WORKFLOW);
    expect(url.searchParams.get("range")).toBe("24h");

    await page.reload();
    await expect.poll(() => card("sent").textContent()).toBe("3");
    expect(await page.getByLabel("Channel").inputValue()).toBe("sms");
    expect(await page.getByLabel("Buckets").inputValue()).toBe("hour");
    expect(await page.getByLabel("Period", { exact: true }).inputValue()).toBe("24h");
    expect(await page.getByRole("searchbox", { name: "Workflow", exact: true }).inputValue()).toBe(WORKFLOW);
    await page.getByLabel("Channel").selectOption("");
    await expect.poll(() => card("sent").textContent()).toBe("7");
  });

  it("shows a step's skip reasons when its step is chosen, and a failing step's failures", async () => {
    await page.goto(page.url().replace(/\/analytics.*$/, VIEW));
    const funnel = page.locator(`[data-workflow="${WORKFLOW}"]`);
    await funnel.waitFor();
    await funnel.getByRole("button", { name: "text", exact: true }).click();
    const drill = funnel.locator('[data-drill="text"]');
    await drill.waitFor();
    // Both skipped texts (a false condition, no phone), under the reasons the analytics API gives.
    const reasons = drill.locator('[data-reasons="skipped"] [data-reason]');
    const skipped = await reasons.evaluateAll((items) => items.map((li) => Number(li.getAttribute("data-count"))));
    expect(skipped.reduce((n, c) => n + c, 0)).toBe(2);
    // Each under its own reason, read from the skip's timeline: one false condition, one missing phone.
    const named = await reasons.evaluateAll((items) =>
      items.map((li) => [li.getAttribute("data-reason"), Number(li.getAttribute("data-count"))]),
    );
    expect(Object.fromEntries(named)).toEqual({ condition: 1, missing_address: 1 });
    expect(await drill.locator('[data-reasons="failed"] [data-reason]').count()).toBe(0);
    expect(new URL(page.url()).searchParams.get("step")).toBe("text");
    expect(new URL(page.url()).searchParams.get("funnel")).toBe(WORKFLOW);
    expect(await funnel.getByRole("button", { name: "text", exact: true }).getAttribute("aria-pressed")).toBe("true");

    // A bar chooses its step too: the first step's "reached" bar.
    await funnel.locator(".recharts-bar-rectangle").first().click();
    const failing = funnel.locator('[data-drill="welcome"]');
    await failing.waitFor();
    expect(await failing.locator('[data-reasons="failed"] [data-reason="template_error"]').textContent()).toContain("1");
    expect(await drill.count()).toBe(0);
    await screenshot(page, "analytics-funnel-drill-down");

    // The drill-down is part of the view: a reload keeps it open.
    await page.reload();
    await page.locator(`[data-workflow="${WORKFLOW}"] [data-drill="welcome"]`).waitFor();
  });

  it("groups the errors, each linking to its example message", async () => {
    const errors = page.getByRole("region", { name: "Errors" });
    const row = errors.locator('tr[data-code="template_error"]');
    await row.waitFor();
    expect(await row.locator('[data-label="Count"]').textContent()).toBe("1");
    const failed = await api<{ data: Message[] }>("GET", `/v1/messages?workflow=${WORKFLOW}&status=failed`);
    expect(failed.body.data).toHaveLength(1);
    const example = failed.body.data[0]!.id;
    await row.getByRole("link").click();
    await page.waitForURL((url) => url.pathname.endsWith(`/activity/messages/${example}`));
    await page.getByTestId("timeline").waitFor();
    await page.goBack();
    await page.getByRole("region", { name: "Overview" }).waitFor();
  });

  it("exports a report as CSV and NDJSON through the API's Accept negotiation", async () => {
    const providers = page.getByRole("region", { name: "Providers" });
    const [csv] = await Promise.all([page.waitForEvent("download"), providers.getByRole("button", { name: /as CSV/ }).click()]);
    expect(csv.suggestedFilename()).toMatch(/^clarion-providers-.*\.csv$/);
    const lines = readFileSync((await csv.path())!, "utf8")
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toContain("provider");
    // A row per (channel, provider) of the run: sandbox email and sandbox SMS, and the skipped texts that reached no provider.
    expect(lines.length).toBeGreaterThanOrEqual(3);

    const [ndjson] = await Promise.all([page.waitForEvent("download"), providers.getByRole("button", { name: /as NDJSON/ }).click()]);
    expect(ndjson.suggestedFilename()).toMatch(/\.ndjson$/);
    const rows = readFileSync((await ndjson.path())!, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.reduce((n, r) => n + Number(r.sent ?? 0), 0)).toBe(7);
  });

  it("has a table behind every chart, in the accessibility tree, and labelled regions", async () => {
    const figures = page.locator("figure[data-chart]");
    await expect.poll(() => figures.count()).toBeGreaterThanOrEqual(5);
    for (const figure of await figures.all()) {
      // The drawing is hidden from screen readers; its table is not, even while visually hidden.
      expect(await figure.locator(".analytics-chart").getAttribute("aria-hidden")).toBe("true");
      // Nothing hidden from screen readers takes the keyboard's focus.
      expect(await figure.locator('.analytics-chart [tabindex]:not([tabindex="-1"])').count()).toBe(0);
      expect(await figure.getByRole("table").count()).toBe(1);
    }
    for (const name of ["Overview", "Workflows", "Providers", "Fatigue", "Errors"]) {
      expect(await page.getByRole("region", { name }).count()).toBe(1);
    }
    const series = page.locator('figure[data-chart="series"]');
    const table = series.locator("[data-chart-table]");
    expect(await table.evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    await series.getByRole("button", { name: "Show table" }).click();
    expect(await table.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(100);
    const sent = await table.locator('td[data-figure="sent"]').evaluateAll((tds) => tds.reduce((n, td) => n + Number(td.textContent), 0));
    expect(sent).toBe(7);
  });

  it("fits a 390 px phone: nothing wider than the screen", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, `${VIEW}&funnel=${WORKFLOW}&step=text`);
    await phone.locator('[data-card="sent"] [data-value]').filter({ hasText: "7" }).waitFor();
    await phone.locator(`[data-workflow="${WORKFLOW}"] [data-drill="text"]`).waitFor();
    await phone.locator('[data-report="errors"] tr[data-code="template_error"]').waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(phone, "analytics-390");
    await phone.close();
  });
});
