import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn, confirmDialog } from "./browser";

let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const key = `launch:${run}:watchers`;
const ids = ["ada", "grace", "alan", "edsger", "barbara"].map((name) => `${name}-${run}`);

type Members = { data: { subscriberId: string }[]; nextCursor: string | null };
const members = async () =>
  (await api<Members>("GET", `/v1/topics/${encodeURIComponent(key)}/subscribers?limit=500`)).body.data.map((m) => m.subscriberId);

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("the Topics pages", () => {
  it("refuses a bad key on its field, then creates the topic and opens it", async () => {
    await signIn(page, "/topics");
    await page.getByLabel("Key").fill("Not A Key");
    await page.getByLabel("Name").fill("Launch watchers");
    await page.getByRole("button", { name: "Create topic" }).click();
    await page.locator('input[aria-invalid="true"]').waitFor();
    expect(await page.getByLabel("Key").getAttribute("aria-invalid")).toBe("true");

    await page.getByLabel("Key").fill(key);
    await page.getByRole("button", { name: "Create topic" }).click();
    await page.getByRole("heading", { name: "Launch watchers" }).waitFor();
    expect(decodeURIComponent(page.url())).toContain(`/dashboard/env/development/topics/${key}`);
    expect((await api("GET", `/v1/topics/${encodeURIComponent(key)}`)).status).toBe(200);
  });

  it("adds several members pasted at once", async () => {
    await page.getByLabel("Subscriber ids").fill(`${ids[0]}\n${ids[1]}, ${ids[2]}\n${ids[3]} ${ids[4]}\n${ids[0]}`);
    await page.getByRole("button", { name: "Add 5" }).click();
    await page.getByRole("status").filter({ hasText: "Added 5" }).waitFor();
    for (const id of ids) await page.locator(`tr[data-member="${id}"]`).waitFor();
    expect(await page.getByTestId("member-count").textContent()).toBe("5");
    expect((await members()).sort()).toEqual([...ids].sort());
    await screenshot(page, "topic");
  });

  it("removes several ticked members after confirmation", async () => {
    const gone = ids.slice(0, 3);
    for (const id of gone) await page.getByLabel(`Select ${id}`).check();
    await page.getByRole("button", { name: "Remove selected (3)" }).click();
    await confirmDialog(page);
    for (const id of gone) await page.locator(`tr[data-member="${id}"]`).waitFor({ state: "detached" });
    expect((await members()).sort()).toEqual(ids.slice(3).sort());
    expect(await page.getByTestId("member-count").textContent()).toBe("2");
  });

  it("pages a long member list with More", async () => {
    const more = Array.from({ length: 110 }, (_, i) => `bulk-${run}-${String(i).padStart(3, "0")}`);
    const added = await api<{ added: number }>("POST", `/v1/topics/${encodeURIComponent(key)}/subscribers`, { subscriberIds: more });
    expect(added.body.added).toBe(110);
    await page.reload();
    await expect.poll(() => page.locator("tr[data-member]").count()).toBe(100);
    await page.getByRole("button", { name: "More members" }).click();
    await expect.poll(() => page.locator("tr[data-member]").count()).toBe(112);
    expect(await page.getByTestId("member-count").textContent()).toBe("112");
  });

  it("renames the topic, keeping its key", async () => {
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByLabel("Topic name").fill("Launch followers");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByRole("heading", { name: "Launch followers" }).waitFor();
    const stored = await api<{ key: string; name: string }>("GET", `/v1/topics/${encodeURIComponent(key)}`);
    expect(stored.body).toMatchObject({ key, name: "Launch followers" });
  });

  it("lists the topic and fits a 390 px phone", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/topics");
    await phone.locator(`tr[data-topic="${key}"]`).waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "topics-390");
    await phone.locator(`tr[data-topic="${key}"]`).getByRole("link").click();
    await phone.locator(`tr[data-member="${ids[4]}"]`).waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "topic-390");
    await phone.close();
  });
});
