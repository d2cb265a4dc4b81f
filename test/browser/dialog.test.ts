import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, CHROMIUM, launch } from "./browser";

// ui/Dialog.tsx (Radix's Dialog) on the component page: modal, focus kept inside, Escape closes it.
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

const focusInDialog = () => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')));
const focusedName = () =>
  page.evaluate(() => {
    const focused = document.activeElement;
    return focused instanceof HTMLInputElement ? `input:${focused.labels?.[0]?.textContent ?? ""}` : (focused?.textContent ?? "");
  });

describe.skipIf(!CHROMIUM)("the dialog", () => {
  it("traps focus inside, hides the page behind, and closes on Escape with focus back on its opener", async () => {
    await page.goto(`${base()}/dashboard/_ui`);
    const opener = page.getByRole("button", { name: "Open dialog" });
    await opener.focus();
    await page.keyboard.press("Enter");

    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    // Focus moved in, to its first control; the page behind is out of assistive technology's reach.
    expect(await focusedName()).toBe("input:Overlap (hours)");
    expect(await page.evaluate(() => document.getElementById("app")?.getAttribute("aria-hidden"))).toBe("true");

    // Tab and Shift+Tab go round its three controls and never leave it.
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInDialog()).toBe(true);
      seen.add(await focusedName());
    }
    expect([...seen].sort()).toEqual(["Cancel", "Rotate", "input:Overlap (hours)"]);
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await focusInDialog()).toBe(true);
    }

    // A click outside leaves it open: a half-filled dialog is not lost to a stray click.
    await page.mouse.click(5, 5);
    expect(await dialog.isVisible()).toBe(true);

    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => opener.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await page.evaluate(() => document.getElementById("app")?.hasAttribute("aria-hidden"))).toBe(false);
  });
});
