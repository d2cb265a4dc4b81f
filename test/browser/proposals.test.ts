import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The Proposals page: a change proposed through the API (as an agent or CI would) shown beside the
// version it was made from, rendered, and applied by a person; the navigation counts what waits.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const WORKFLOW = `proposal-${run}`;
const STALE = `proposal-stale-${run}`;
const SUBJECT = "Your order {{ payload.orderId }} is on its way";

interface Proposal {
  id: string;
  status: string;
}

const workflow = (key: string) => ({
  key,
  name: "Order shipped",
  payloadSchema: { type: "object", examples: [{ orderId: "A-17" }] },
  steps: [{ id: "mail", type: "email", template: { subject: "Order {{ payload.orderId }} shipped", text: "Hello" } }],
});

const propose = (key: string, value: string) =>
  api<Proposal>("POST", "/v1/proposals", {
    resource: "workflow",
    key,
    patch: [{ op: "replace", path: "/steps/0/template/subject", value }],
    note: "A warmer subject",
  });

const pendingCount = async () => (await api<{ pending: number }>("GET", "/v1/proposals?status=pending&limit=1")).body.pending;
/** The count on the navigation's Workflows link as read out, or null when it shows none. */
const navCount = async () => {
  const count = page.getByRole("navigation", { name: "Main" }).getByTestId("pending-proposals");
  return (await count.count()) > 0 ? count.textContent() : null;
};

let proposal = "";
beforeAll(async () => {
  if (!CHROMIUM) return;
  expect((await api("POST", "/v1/workflows", workflow(WORKFLOW))).status).toBe(201);
  expect((await api("POST", "/v1/workflows", workflow(STALE))).status).toBe(201);
  const made = await propose(WORKFLOW, SUBJECT);
  expect(made.status).toBe(201);
  proposal = made.body.id;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await browser?.close();
  if (CHROMIUM) {
    await api("DELETE", `/v1/workflows/${WORKFLOW}`);
    await api("DELETE", `/v1/workflows/${STALE}`);
  }
});

describe.skipIf(!CHROMIUM)("the Proposals page", () => {
  it("counts the pending proposals in the navigation and lists them, from the Workflows page", async () => {
    await signIn(page, "/workflows");
    const pending = await pendingCount();
    await expect.poll(navCount).toBe(`${pending} proposal${pending === 1 ? "" : "s"} pending`);
    await page
      .getByRole("navigation", { name: "Content" })
      .getByRole("link", { name: /^Proposals/ })
      .click();
    await page.getByRole("heading", { name: "Proposals" }).waitFor();
    const row = page.locator(`tr[data-proposal="${proposal}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("A warmer subject");
  });

  it("shows the change beside the current version, rendered with the payload's example, and applies it", async () => {
    const before = await pendingCount();
    await page.locator(`tr[data-proposal="${proposal}"] a`).click();
    const diff = page.getByTestId("proposal-diff");
    await diff.waitFor();
    const changed = diff.locator("tr.changed", { hasText: "subject" });
    expect(await changed.locator("td.before").textContent()).toContain("Order {{ payload.orderId }} shipped");
    expect(await changed.locator("td.after").textContent()).toContain(SUBJECT);
    expect(await page.getByTestId("proposal-preview").textContent()).toContain("Your order A-17 is on its way");
    await screenshot(page, "proposal");

    await page.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => page.getByTestId("decision").textContent()).toContain("Applied as version 2");
    const left = before - 1;
    await expect.poll(navCount).toBe(left > 0 ? `${left} proposal${left === 1 ? "" : "s"} pending` : null);
    const saved = await api<{ version: number; steps: { template: { subject: string } }[] }>("GET", `/v1/workflows/${WORKFLOW}`);
    expect(saved.body.version).toBe(2);
    expect(saved.body.steps[0]?.template.subject).toBe(SUBJECT);
  });

  it("says so when the workflow changed since the proposal, and applies nothing", async () => {
    const made = await propose(STALE, "Mine");
    expect((await api("PUT", `/v1/workflows/${STALE}`, { ...workflow(STALE), name: "Theirs" })).status).toBe(200);
    await page.goto(page.url().replace(/proposals\/.*$/, `proposals/${made.body.id}`));
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByTestId("stale").waitFor();
    expect((await api<Proposal>("GET", `/v1/proposals/${made.body.id}`)).body.status).toBe("pending");
    expect((await api<{ version: number }>("GET", `/v1/workflows/${STALE}`)).body.version).toBe(2);
    await page.getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => page.getByTestId("decision").textContent()).toContain("Rejected");
  });
});
