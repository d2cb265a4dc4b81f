import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, confirmDialog, launch, screenshot, signIn } from "./browser";

// A workflow's History tab (versions, two side by side, revert with If-Match) and the editor's
// answer to a 412: two people edit the same workflow, the second save shows who changed it.
let browser: Browser | undefined;
const contexts: BrowserContext[] = [];
let page: Page;

const run = Date.now().toString(36);
const KEY = `history-${run}`;
const LONG = `history-long-${run}`;
const email = (subject: string) => ({ id: "mail", type: "email", template: { subject, html: "<p>Hello</p>\n<p>See you</p>" } });
const sms = { id: "text", type: "sms", template: { body: "Your order shipped" } };

interface Workflow {
  name: string;
  version: number;
  steps: { id: string; template?: { subject?: string } }[];
}

async function put(key: string, body: Record<string, unknown>) {
  const res = await api<Workflow>("PUT", `/v1/workflows/${key}`, { key, ...body });
  expect(res.status).toBe(200);
  return res.body;
}

async function openPage(): Promise<Page> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const opened = await context.newPage();
  opened.setDefaultTimeout(10_000);
  return opened;
}

/** The If-Match headers of the writes a page sends to one workflow. */
function ifMatches(p: Page, key: string): string[] {
  const seen: string[] = [];
  p.on("request", (r: Request) => {
    if (r.url().includes(`/v1/workflows/${key}`) && r.method() !== "GET") seen.push(`${r.method()} ${r.headers()["if-match"]}`);
  });
  return seen;
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await openPage();
  // Three versions: created, a subject changed, an SMS step added.
  expect((await api("POST", "/v1/workflows", { key: KEY, name: "Order shipped", steps: [email("Hi")] })).status).toBe(201);
  await put(KEY, { name: "Order shipped", steps: [email("Your order shipped")] });
  await put(KEY, { name: "Order shipped", steps: [email("Your order shipped"), sms] });
  // 22 versions: more than one page of the list.
  expect((await api("POST", "/v1/workflows", { key: LONG, name: "v1", steps: [email("Hi")] })).status).toBe(201);
  for (let n = 2; n <= 22; n++) await put(LONG, { name: `v${n}`, steps: [email("Hi")] });
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
});

describe.skipIf(!CHROMIUM)("a workflow's History tab", () => {
  it("lists the versions newest first with who saved them and what changed", async () => {
    await signIn(page, `/workflows/${KEY}`);
    await page.getByRole("link", { name: "History" }).click();
    await page.waitForURL(/\?tab=history$/);
    const rows = page.locator(".version-list tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-version")))).toEqual(["3", "2", "1"]);
    expect(await page.locator('[data-version="3"] .summary').textContent()).toBe('step "text" added');
    expect(await page.locator('[data-version="2"] .summary').textContent()).toBe('step "mail": template.subject changed');
    expect(await page.locator('[data-version="3"]').textContent()).toContain("current");
    expect(await page.getByTestId("workflow-version").textContent()).toBe("v3");
  });

  it("compares any two ticked versions side by side, changed fields highlighted", async () => {
    await page.getByLabel("Compare version 1").check();
    await page.getByLabel("Compare version 3").check();
    await page.getByRole("button", { name: "Compare 1 and 3" }).click();
    await page.waitForURL(/from=1&to=3/);
    const mail = page.locator('[data-diff-section="mail"]');
    await mail.waitFor();
    expect(await mail.getAttribute("data-change")).toBe("changed");
    const subject = mail.locator('[data-field="template.subject"]');
    expect(await subject.getAttribute("data-changed")).toBe("true");
    expect(await subject.locator("td.before").textContent()).toBe("Hi\n");
    expect(await subject.locator("td.after").textContent()).toBe("Your order shipped\n");
    expect(await subject.locator("td.before mark.del").count()).toBe(1);
    // Unchanged fields stay out until asked for.
    expect(await mail.locator('[data-field="template.html"]').count()).toBe(0);
    expect(await page.locator('[data-diff-section="text"]').getAttribute("data-change")).toBe("added");
    expect(await page.locator('[data-diff-section="text"] [data-field="template.body"] td.after').textContent()).toBe(
      "Your order shipped\n",
    );
    await page.getByLabel("Show unchanged fields").check();
    expect(await mail.locator('[data-field="template.html"]').getAttribute("data-changed")).toBe("false");
    await screenshot(page, "workflow-history-diff");
    // A third tick lets go of the older of the two.
    await page.getByLabel("Compare version 2").check();
    expect(await page.getByLabel("Compare version 1").isChecked()).toBe(false);
    await page.getByRole("button", { name: "Compare 2 and 3" }).waitFor();
  });

  it("shows one version's content, and reverts to it after confirming, with the loaded version in If-Match", async () => {
    const sent = ifMatches(page, KEY);
    await page.getByRole("button", { name: "View version 1" }).click();
    const view = page.locator('.version-view[data-version="1"]');
    await view.waitFor();
    expect(await view.locator('[data-field="template.subject"] td').textContent()).toBe("Hi");
    expect(await view.locator('[data-diff-section="text"]').count()).toBe(0);

    await view.getByRole("button", { name: "Revert to this version…" }).click();
    const dialog = page.locator('[role="dialog"]');
    expect(await dialog.textContent()).toContain("Version 1's content becomes version 4");
    await confirmDialog(page);
    await page.getByText("Restored version 1 as version 4.").waitFor();
    expect(sent).toEqual(['POST "3"']);
    expect(await page.getByTestId("workflow-version").textContent()).toBe("v4");
    await expect.poll(() => page.locator('.version-list [data-version="4"] .summary').textContent()).toBe("Reverted to version 1");

    const stored = await api<Workflow>("GET", `/v1/workflows/${KEY}`);
    expect(stored.body).toMatchObject({ version: 4, steps: [{ id: "mail", template: { subject: "Hi" } }] });
    // The editor holds the restored content.
    await page.getByRole("link", { name: "Editor" }).click();
    expect(await page.locator('[data-step-panel="mail"] [data-template="subject"]').inputValue()).toBe("Hi");
    expect(await page.locator("[data-step-row]").count()).toBe(1);
  });

  it("shows a step changed inside a branch path as its own section, where it sits, and a step moved into the path", async () => {
    const tree = `history-tree-${run}`;
    const route = (steps: unknown[]) => ({
      id: "route",
      type: "branch",
      paths: [{ id: "vip", name: "VIP", if: { field: "payload.vip", op: "eq", value: true }, steps }],
    });
    const inner = (body: string) => ({ id: "inner", type: "in_app", template: { body } });
    expect((await api("POST", "/v1/workflows", { key: tree, name: "Tree", steps: [sms, route([inner("Old")])] })).status).toBe(201);
    await put(tree, { name: "Tree", steps: [route([inner("New"), sms])] });
    await page.goto(page.url().replace(/\/workflows\/.*$/, `/workflows/${tree}?tab=history&from=1&to=2`));
    const nested = page.locator('[data-diff-section="inner"]');
    await nested.waitFor();
    expect(await nested.getAttribute("data-change")).toBe("changed");
    expect(await nested.locator("tr.section").textContent()).toContain("in route › VIP");
    expect(await nested.locator("tr.section").getAttribute("data-depth")).toBe("1");
    expect(await nested.locator('[data-field="template.body"] td.after').textContent()).toBe("New\n");
    const moved = page.locator('[data-diff-section="text"]');
    expect(await moved.getAttribute("data-change")).toBe("moved");
    expect(await moved.locator("tr.section").textContent()).toContain("(moved from the top level)");
  });

  it("pages a long history with Older versions", async () => {
    await page.goto(page.url().replace(/\/workflows\/.*$/, `/workflows/${LONG}?tab=history`));
    const rows = page.locator(".version-list tbody tr");
    await expect.poll(() => rows.count()).toBe(20);
    await page.getByRole("button", { name: "Older versions" }).click();
    await expect.poll(() => rows.count()).toBe(22);
    expect(await rows.last().getAttribute("data-version")).toBe("1");
    expect(await page.getByRole("button", { name: "Older versions" }).count()).toBe(0);
  });
});

describe.skipIf(!CHROMIUM)("the History tab on a 390 px phone", () => {
  it("scrolls the side-by-side diff within its box, not the page", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(page.url().replace(/\/workflows\/.*$/, `/workflows/${KEY}?tab=history&from=1&to=3`));
    await page.locator('[data-diff-section="mail"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows each version's actions on the screen, not beyond the list's edge", async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(page.url().replace(/\/workflows\/.*$/, `/workflows/${KEY}?tab=history`));
    for (const name of ["View version 1", "Changes in version 2", "Revert to version 1"]) {
      const button = page.getByRole("button", { name });
      await button.waitFor();
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await screenshot(page, "workflow-history-390");
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});

describe.skipIf(!CHROMIUM)("two people editing one workflow", () => {
  const KEY2 = `conflict-${run}`;
  let first: Page;
  let second: Page;

  beforeAll(async () => {
    if (!CHROMIUM) return;
    expect((await api("POST", "/v1/workflows", { key: KEY2, name: "Shared", steps: [email("Hi")] })).status).toBe(201);
    [first, second] = [await openPage(), await openPage()];
    await signIn(first, `/workflows/${KEY2}`);
    await signIn(second, `/workflows/${KEY2}`);
    for (const p of [first, second]) await p.getByTestId("workflow-version").waitFor();
  });

  it("the second save shows that someone else changed the workflow, and overwrites nothing", async () => {
    const sent = ifMatches(second, KEY2);
    await first.getByLabel("Name", { exact: true }).fill("Shared (first)");
    await first.getByRole("button", { name: "Save" }).click();
    await first.getByRole("status").getByText("Saved.").waitFor();
    expect(await first.getByTestId("workflow-version").textContent()).toBe("v2");

    await second.getByLabel("Name", { exact: true }).fill("Shared (second)");
    await second.getByRole("button", { name: "Save" }).click();
    const notice = second.getByTestId("conflict");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("Someone else changed this workflow");
    await expect.poll(() => notice.textContent()).toContain("it is now at version 2");
    expect(sent).toEqual(['PUT "1"']);
    expect((await api<Workflow>("GET", `/v1/workflows/${KEY2}`)).body).toMatchObject({ name: "Shared (first)", version: 2 });
    // The second person's draft is still there.
    expect(await second.getByLabel("Name", { exact: true }).inputValue()).toBe("Shared (second)");
    await screenshot(second, "workflow-conflict");
  });

  it("View the difference opens their change beside the version this editor loaded", async () => {
    await second.getByRole("button", { name: "View the difference" }).click();
    await second.waitForURL(/tab=history&from=1&to=2/);
    const name = second.locator('[data-diff-section="settings"] [data-field="name"]');
    await name.waitFor();
    expect(await name.locator("td.before").textContent()).toBe("Shared\n");
    expect(await name.locator("td.after").textContent()).toBe("Shared (first)\n");
  });

  it("Reload their version replaces the draft after asking, and the next save names their version", async () => {
    await second.getByRole("link", { name: "Editor" }).click();
    expect(await second.getByLabel("Name", { exact: true }).inputValue()).toBe("Shared (second)");
    const sent = ifMatches(second, KEY2);
    await second.getByRole("button", { name: "Reload their version" }).click();
    expect(await second.locator('[role="dialog"]').textContent()).toContain("replaces your unsaved changes");
    await confirmDialog(second);
    await expect.poll(() => second.getByLabel("Name", { exact: true }).inputValue()).toBe("Shared (first)");
    expect(await second.getByTestId("conflict").count()).toBe(0);
    expect(await second.getByTestId("workflow-version").textContent()).toBe("v2");

    await second.getByLabel("Name", { exact: true }).fill("Shared (both)");
    await second.getByRole("button", { name: "Save" }).click();
    await second.getByRole("status").getByText("Saved.").waitFor();
    expect(sent).toEqual(['PUT "2"']);
    expect((await api<Workflow>("GET", `/v1/workflows/${KEY2}`)).body).toMatchObject({ name: "Shared (both)", version: 3 });
  });

  it("activating from a stale page is refused the same way instead of restoring old content", async () => {
    // The first page still holds version 2; its Deactivate would send version 2's name back.
    await first.getByRole("button", { name: "Deactivate" }).click();
    await first.getByTestId("conflict").waitFor();
    expect((await api<Workflow & { active: boolean }>("GET", `/v1/workflows/${KEY2}`)).body).toMatchObject({
      name: "Shared (both)",
      active: true,
      version: 3,
    });
  });
});
