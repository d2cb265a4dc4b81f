// A trigger started by a trigger_workflow step names its parent on its page, and the link leads there.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const CHILD = `child-${run}`;
const PARENT = `parent-${run}`;
const subscriberId = `kid-${run}`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  const child = { key: CHILD, name: "Child", steps: [{ id: "mail", type: "email", template: { subject: "From the child", text: "Hi" } }] };
  const parent = { key: PARENT, name: "Parent", steps: [{ id: "start", type: "trigger_workflow", workflow: CHILD }] };
  for (const body of [child, parent]) expect((await api("POST", "/v1/workflows", body)).status).toBe(201);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("a child trigger's page", () => {
  it("names the trigger whose step started it, and links to it", async () => {
    const res = await api<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: PARENT,
      to: { subscriberId, email: "kid@example.com" },
    });
    expect(res.status).toBe(202);
    const parent = res.body.transactionId;
    const child = `${parent}:start:${subscriberId}`;
    await signIn(page, `/activity/triggers/${encodeURIComponent(child)}`);
    // The child is recorded once the parent's run reaches its step, moments after the 202.
    const link = page.getByTestId("trigger-parent").getByRole("link", { name: parent });
    for (let tries = 0; ; tries++) {
      await page.getByTestId("trigger-status").or(page.getByRole("alert")).first().waitFor({ timeout: 30_000 });
      if (await link.isVisible()) break;
      if (tries > 30) throw new Error(`the page of ${child} never named its parent`);
      await page.waitForTimeout(500);
      await page.reload();
    }
    await screenshot(page, "trigger-parent");
    await link.click();
    await page.waitForURL(new RegExp(`/activity/triggers/${encodeURIComponent(parent)}$`));
    expect(await page.getByTestId("trigger-parent").count()).toBe(0);
  });
});
