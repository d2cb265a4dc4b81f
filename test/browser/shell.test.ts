import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base, CHROMIUM, launch, screenshot, signIn } from "./browser";

// What every page stands on: signing in, routes that survive a reload, the not-found page, a phone's width.
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

describe.skipIf(!CHROMIUM)("the dashboard's shell", () => {
  it("refuses a wrong key in words, then signs in with the right one", async () => {
    await page.goto(`${base()}/dashboard/`);
    // The placeholder shows the shape of the keys `npm start` hands out.
    const placeholder = (await page.getAttribute("#credential", "placeholder")) ?? "";
    expect(placeholder).toBe("clarion_admin_… or ck_dev_…");
    expect(inject("apiKey").startsWith(placeholder.split(" or ")[1]!.replace("…", ""))).toBe(true);
    await page.fill("#credential", "ck_dev_not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    const problem = page.locator(".problem");
    await problem.waitFor();
    expect(await problem.textContent()).toContain("401");
    await page.fill("#credential", inject("apiKey"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("header.top").waitFor();
  });

  it("offers a skip link as the first stop of the keyboard, which moves focus to the page", async () => {
    await page.goto(`${base()}/dashboard/workflows`);
    await page.getByRole("heading", { name: "Workflows" }).waitFor();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    expect(await page.getByRole("link", { name: "Skip to content" }).isVisible()).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("main");
  });

  it("answers a deep link on reload with the app, and an unknown path with its not-found page", async () => {
    const res = await fetch(`${base()}/dashboard/no/such/page`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // A missing file stays a 404: only paths that name no file become the app.
    expect((await fetch(`${base()}/dashboard/assets/missing.js`)).status).toBe(404);

    await page.goto(`${base()}/dashboard/no/such/page`);
    await page.getByTestId("not-found").waitFor();
    expect(await page.getByTestId("not-found").textContent()).toContain("/no/such/page");
  });

  it("shows the admin's thirteen areas on one line at 1280 × 800", async () => {
    const wide = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(wide, "/", inject("adminKey"));
    const links = wide.getByRole("navigation", { name: "Main" }).getByRole("link");
    await expect.poll(() => links.count()).toBe(13);
    const boxes = await links.evaluateAll((all) => all.map((a) => a.getBoundingClientRect()).map((r) => ({ top: r.top, right: r.right })));
    // One line: every link at the height of the first, none past the screen's edge.
    expect(new Set(boxes.map((b) => Math.round(b.top))).size).toBe(1);
    expect(Math.max(...boxes.map((b) => b.right))).toBeLessThanOrEqual(1280);
    // The header is one row: the session's controls beside the navigation, not below it.
    const header = await wide.locator("header.top").boundingBox();
    expect(header!.height).toBeLessThan(64);
    expect(await wide.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(wide, "shell-admin-1280");
    await wide.close();
  });

  it("fits a 390 px phone: nothing wider than the screen, the navigation behind Menu", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const nav = phone.locator("#main-nav");
    const firstLink = nav.locator("a").first();
    expect(await firstLink.isVisible()).toBe(false);
    await phone.getByRole("button", { name: "Menu" }).click();
    await firstLink.waitFor({ state: "visible" });
    await screenshot(phone, "shell-390");
    await phone.close();
  });
});
