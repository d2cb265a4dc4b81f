// The trigger page draws each recipient's run: the path its branches took and every step on it
// with its outcome; a path not taken is never shown as run.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const ROUTED = `activity-routed-${run}`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const body = {
    key: ROUTED,
    name: "Routed",
    steps: [
      { id: "hello", type: "email", template: { subject: "Hello", text: "Hello" } },
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "vip",
            if: { field: "subscriber.data.vip", op: "eq", value: true },
            steps: [
              { id: "vip-sms", type: "sms", template: { body: "Welcome, VIP" } },
              { id: "pause", type: "delay", for: "PT1H" },
              { id: "vip-mail", type: "email", template: { subject: "Still there?", text: "Hi" } },
            ],
          },
        ],
        default: { steps: [{ id: "plain-mail", type: "email", template: { subject: "Welcome", text: "Hi" } }] },
      },
    ],
  };
  expect((await api("POST", "/v1/workflows", body)).status).toBe(201);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("a trigger's runs on its page", () => {
  it("shows the path a branched run took, its steps in order, and a delay waiting until its end; never the path not taken", async () => {
    const to = { subscriberId: `vip-${run}`, email: "ada@example.com", phone: "+41791234567", data: { vip: true } };
    const res = await api<{ transactionId: string }>("POST", "/v1/trigger", { workflow: ROUTED, to, payload: {} });
    expect(res.status).toBe(202);
    await signIn(page, `/activity/triggers/${encodeURIComponent(res.body.transactionId)}`);

    const recipient = page.locator(`[data-recipient="${to.subscriberId}"]`);
    await recipient.locator('[data-step="pause"] [data-waiting="delay"]').waitFor({ timeout: 30_000 });
    await recipient.locator('[data-step="vip-sms"] [data-status="sent"]').waitFor({ timeout: 30_000 });
    expect(await recipient.getByTestId("run-path").textContent()).toContain("route → vip");
    const steps = await recipient
      .locator("li[data-step]")
      .evaluateAll((lis) =>
        lis.map((li) => [li.getAttribute("data-step"), li.getAttribute("data-run-status"), li.getAttribute("data-depth")]),
      );
    expect(steps).toEqual([
      ["hello", "sent", "0"],
      ["route", "ran", "0"],
      ["vip-sms", "sent", "1"],
      ["pause", "waiting", "1"],
      ["vip-mail", "pending", "1"],
    ]);
    expect(await recipient.locator('[data-step="route"] [data-path="vip"]').textContent()).toContain("took path vip");
    expect(await recipient.locator('[data-step="plain-mail"]').count()).toBe(0);
    const until = Date.parse((await recipient.locator('[data-step="pause"] time').getAttribute("datetime")) ?? "");
    expect(until).toBeGreaterThan(Date.now() + 55 * 60_000);
    await screenshot(page, "activity-trigger-run");
  });
});
