import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base, CHROMIUM, launch, screenshot, signIn } from "./browser";

// WCAG's 4.5:1 for text, measured in Chromium in both themes: the component page (every
// component in each state, ui/gallery) and real pages, signed out and in.
const MINIMUM = 4.5;

interface Failure {
  text: string;
  ratio: number;
  color: string;
  background: string;
  element: string;
}

/**
 * Runs in the page: every visible text (an element's own text, and what a form control holds)
 * whose contrast with the colour behind it is under `minimum`. The background is found by
 * compositing the background colours from the element up to the root; opacity on the way fades
 * the text towards it. Disabled controls are exempt, as WCAG exempts them.
 */
function lowContrast(minimum: number): Failure[] {
  type Rgba = [number, number, number, number];
  const parse = (css: string): Rgba | null => {
    const match = /rgba?\(([^)]+)\)/.exec(css);
    if (!match?.[1]) return null;
    const [r = 0, g = 0, b = 0, a = 1] = match[1]
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [r, g, b, a];
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const a = top[3];
    return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
  };
  const luminance = ([r, g, b]: Rgba) => {
    const channel = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const ratio = (a: Rgba, b: Rgba) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (hi + 0.05) / (lo + 0.05);
  };
  const backgroundOf = (element: Element): Rgba => {
    const layers: Rgba[] = [];
    for (let e: Element | null = element; e; e = e.parentElement) {
      const color = parse(getComputedStyle(e).backgroundColor);
      if (color && color[3] > 0) {
        layers.push(color);
        if (color[3] >= 1) break;
      }
    }
    return layers.reduceRight<Rgba>((below, layer) => over(layer, below), [255, 255, 255, 1]);
  };
  const opacityOf = (element: Element) => {
    let opacity = 1;
    for (let e: Element | null = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    return opacity;
  };
  const hasOwnText = (element: Element) =>
    Array.from(element.childNodes).some((node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? "").trim() !== "");
  const isControlWithText = (element: Element) =>
    (element instanceof HTMLInputElement && !["checkbox", "radio", "color", "hidden"].includes(element.type) && element.value !== "") ||
    (element instanceof HTMLTextAreaElement && element.value !== "") ||
    element instanceof HTMLSelectElement;

  const failures: Failure[] = [];
  for (const element of Array.from(document.body.querySelectorAll("*"))) {
    if (["SCRIPT", "STYLE", "OPTION", "NOSCRIPT", "TEMPLATE"].includes(element.tagName)) continue;
    if (!hasOwnText(element) && !isControlWithText(element)) continue;
    if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const box = element.getBoundingClientRect();
    // Text kept for screen readers only (a 1 px clipped box) is not seen.
    if (box.width <= 1 || box.height <= 1) continue;
    if (element.closest(":disabled, [aria-disabled='true']")) continue;
    const background = backgroundOf(element);
    const color = parse(getComputedStyle(element).color);
    if (!color) continue;
    const seen = over([color[0], color[1], color[2], color[3] * opacityOf(element)], background);
    const measured = ratio(seen, background);
    if (measured < minimum) {
      failures.push({
        text: (hasOwnText(element) ? (element.textContent ?? "") : `(value of ${element.tagName.toLowerCase()})`).trim().slice(0, 60),
        ratio: Math.round(measured * 100) / 100,
        color: getComputedStyle(element).color,
        background: `rgb(${background.slice(0, 3).map(Math.round).join(", ")})`,
        element: `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""}`,
      });
    }
  }
  return failures;
}

let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
});

const rootBackground = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);

describe.skipIf(!CHROMIUM)("text contrast in both themes", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`keeps every text of the component page at ${MINIMUM}:1 or more, the system's theme ${colorScheme}`, async () => {
      await page.emulateMedia({ colorScheme });
      await page.goto(`${base()}/dashboard/_ui`);
      await page.getByRole("heading", { name: "Components" }).waitFor();
      // Each side of the page holds its own theme whatever the system's: both are measured every time.
      const sides = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLElement>(".gallery-theme")).map((side) => getComputedStyle(side).backgroundColor),
      );
      expect(sides).toEqual(["rgb(246, 247, 249)", "rgb(16, 19, 24)"]);
      expect(await rootBackground()).toBe(colorScheme === "dark" ? "rgb(16, 19, 24)" : "rgb(246, 247, 249)");
      await screenshot(page, `ui-${colorScheme}`);
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);

      // An open dialog over the page, in the system's theme.
      await page.getByRole("button", { name: "Open dialog" }).click();
      await page.getByRole("dialog", { name: "Rotate the signing secret?" }).waitFor();
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
      await page.keyboard.press("Escape");
    });
  }

  for (const colorScheme of ["light", "dark"] as const) {
    it(`keeps the sign-in form and the signed-in pages at ${MINIMUM}:1 or more, ${colorScheme}`, async () => {
      await page.emulateMedia({ colorScheme });
      await page.context().clearCookies();
      await page.goto(`${base()}/dashboard/`);
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
      await signIn(page, "/workflows");
      await page.getByRole("heading", { name: "Workflows" }).waitFor();
      expect(await rootBackground()).toBe(colorScheme === "dark" ? "rgb(16, 19, 24)" : "rgb(246, 247, 249)");
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
      await page.goto(`${base()}/dashboard/activity`);
      await page.getByRole("heading", { name: "Activity" }).waitFor();
      await screenshot(page, `activity-${colorScheme}`);
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
      // The layout editor (form, preview, its notice of a missing {{ content }}) and the partials list.
      await page.goto(`${base()}/dashboard/layouts/new`);
      await page.getByRole("heading", { name: "New layout" }).waitFor();
      await page.getByLabel("HTML", { exact: true }).fill("<p>no slot</p>");
      await page.getByText("exactly once").waitFor();
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
      await page.goto(`${base()}/dashboard/partials`);
      await page.getByRole("heading", { name: "Partials" }).waitFor();
      expect(await page.evaluate(lowContrast, MINIMUM)).toEqual([]);
    });
  }
});
