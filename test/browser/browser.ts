// Chromium for one browser test file, and what most tests do first: sign in and call the API.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { beforeEach, inject } from "vitest";
import { localSql } from "../../scripts/bootstrap.mjs";
import { ROOT } from "../local-stack";
import { chromiumOrSkip } from "./chromium";

export const CHROMIUM = chromiumOrSkip();
export const SCREENSHOTS = join(ROOT, "test/browser/__screenshots__");
const CHROMIUM_ARGS = [
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const base = () => inject("base");

export async function launch(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, chromiumSandbox: false, args: CHROMIUM_ARGS });
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => watched(await newPage(options));
  return browser;
}

/**
 * What each open page did lately (its navigations, console errors, uncaught errors, failed and
 * refused requests), printed with its address and text when a test fails: a wait that timed out
 * says only what it waited for, not what the page showed instead.
 */
const pages = new Map<Page, string[]>();

function watched(page: Page): Page {
  const events: string[] = [];
  pages.set(page, events);
  const note = (line: string) => {
    events.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    if (events.length > 40) events.shift();
  };
  page.on("framenavigated", (frame) => frame === page.mainFrame() && note(`navigated to ${frame.url()}`));
  page.on("console", (message) => message.type() === "error" && note(`console error: ${message.text()}`));
  page.on("pageerror", (error) => note(`uncaught: ${error.message}`));
  page.on("requestfailed", (request) => note(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ""}`));
  page.on(
    "response",
    (response) => response.status() >= 400 && note(`${response.status()} ${response.request().method()} ${response.url()}`),
  );
  page.on("close", () => pages.delete(page));
  return page;
}

beforeEach(({ onTestFailed }) => {
  onTestFailed(async () => {
    for (const [page, events] of pages) {
      // What a person sees (innerText), not the hidden text a suspended page keeps (textContent).
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
      const text = await page
        .locator("body")
        .innerText({ timeout: 2_000 })
        .catch((error: Error) => `(unreadable: ${error.message})`);
      console.error(`--- the page at ${page.url()} ---\n${text.slice(0, 1_500)}\n--- what it did lately ---\n${events.join("\n")}`);
    }
  });
});

/** Saves a full-page screenshot under test/browser/__screenshots__ (git-ignored) for a reviewer. */
export async function screenshot(page: Page, name: string): Promise<void> {
  // From the top: a full-page capture of a scrolled page draws the sticky header across its middle.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Opens the dashboard at `path` (below /dashboard/) and signs in with `credential` (the development key by default). */
export async function signIn(page: Page, path = "/", credential = inject("apiKey")): Promise<void> {
  await page.goto(`${base()}/dashboard${path}`);
  await page.fill("#credential", credential);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("header.top").waitFor();
}

/** Answers the open confirmation dialog (ui/ConfirmDialog.tsx) with its confirming button, and waits until it closes. */
export async function confirmDialog(page: Page): Promise<void> {
  const dialog = page.locator('[role="dialog"]');
  await dialog.locator('button[type="submit"]').click();
  await dialog.waitFor({ state: "detached" });
}

/** Calls the API with the development key (or `key`); the answer's body parsed. */
export async function api<T>(method: string, path: string, body?: unknown, key = inject("apiKey")): Promise<{ status: number; body: T }> {
  const res = await fetch(base() + path, {
    method,
    headers: { Authorization: `ApiKey ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Runs SQL on the running Clarion's local D1 database (for state the API cannot make, such as a bounce's suppression). */
export async function sql(command: string): Promise<Record<string, unknown>[]> {
  // The running Worker holds the same SQLite file: a write of ours can meet its lock (SQLITE_BUSY), so try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await localSql({ persistTo: inject("state") })(command);
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}
