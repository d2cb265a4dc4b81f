import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn, sql, confirmDialog } from "./browser";

let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Suppressions page", () => {
  it("lists a bounced address, filters by channel, and lifts it", async () => {
    const [env] = await sql("SELECT id FROM environments WHERE slug = 'development'");
    // A hard bounce as a provider's status webhook would record it.
    await sql(
      `INSERT INTO suppressions (environment_id, address, channel, reason, provider, message_id, created_at) VALUES ('${env!.id}', 'bounced@example.com', 'email', 'hard_bounce', 'resend', NULL, ${Date.now()})`,
    );
    await signIn(page, "/suppressions");
    const row = page.locator('tr[data-address="bounced@example.com"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("hard bounce");
    await screenshot(page, "suppressions");

    await page.getByLabel("Channel").selectOption("sms");
    await page.getByText("No suppressed addresses.").waitFor();
    await page.getByLabel("Channel").selectOption("");
    await row.waitFor();

    await row.getByRole("button", { name: "Lift" }).click();
    await confirmDialog(page);
    await row.waitFor({ state: "detached" });
    const left = await api<{ data: unknown[] }>("GET", "/v1/suppressions?address=bounced@example.com");
    expect(left.body.data).toEqual([]);
  });
});
