import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, confirmDialog, launch, screenshot, signIn } from "./browser";

// A layout made in the dashboard, previewed as it is typed, then picked on a workflow's email step;
// a partial edited into a second version and compared. Neither is the environment's default, so
// the other suites' emails stay unframed.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const LAYOUT = `frame-${run}`;
const PARTIAL = `footer-${run}`;
const WORKFLOW = `layout-pick-${run}`;

interface Step {
  id: string;
  type: string;
  layout?: string | null;
}

const stepsOf = async () => (await api<{ steps: Step[] }>("GET", `/v1/workflows/${WORKFLOW}`)).body.steps;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const created = await api("POST", "/v1/workflows", {
    key: WORKFLOW,
    name: "Layout pick (browser)",
    steps: [{ id: "mail", type: "email", template: { subject: "Hi", html: "<p>Body of the step</p>" } }],
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  if (!CHROMIUM) return;
  await api("DELETE", `/v1/workflows/${WORKFLOW}`);
  await api("DELETE", `/v1/layouts/${LAYOUT}`);
  await api("DELETE", `/v1/partials/${PARTIAL}`);
});

/** The text inside the preview's iframe. */
const framed = () => page.frameLocator("iframe.layout-frame").locator("body");

describe.skipIf(!CHROMIUM)("the Layouts page", () => {
  it("redraws the preview around the sample step's HTML as the layout is typed, then creates it", async () => {
    await signIn(page, "/layouts");
    await page.getByRole("link", { name: "New layout" }).click();
    await page.waitForURL(/\/dashboard\/env\/development\/layouts\/new$/);
    await page.getByLabel("Key", { exact: true }).fill(LAYOUT);
    await page.getByLabel("Name", { exact: true }).fill("Browser frame");
    // The starter layout already wraps the sample.
    await expect.poll(() => framed().textContent()).toContain("Welcome aboard");

    const html = page.getByLabel("HTML", { exact: true });
    await html.fill("");
    await html.pressSequentially("<header>Acme header</header>{{ content }}<footer>Acme foot", { delay: 5 });
    await expect.poll(() => framed().locator("footer").textContent()).toBe("Acme foot");
    expect(await framed().locator("header").textContent()).toBe("Acme header");
    expect(await framed().textContent()).toContain("Welcome aboard");
    await html.pressSequentially("er</footer>", { delay: 5 });
    await expect.poll(() => framed().locator("footer").textContent()).toBe("Acme footer");

    // The sample stands for the step: changing it redraws the frame too.
    await page.getByLabel("Sample step HTML").fill("<p id='sample'>Your order shipped</p>");
    await expect.poll(() => framed().locator("#sample").textContent()).toBe("Your order shipped");

    // Without {{ content }} the page says so before the API would.
    await html.fill("<div>no slot</div>");
    await page.getByText("exactly once").waitFor();
    await page.getByRole("button", { name: "Create layout" }).click();
    await page.locator('[data-code="layout_content_missing"], .field-error[role="alert"]').first().waitFor();
    expect((await api("GET", `/v1/layouts/${LAYOUT}`)).status).toBe(404);

    await html.fill("<header>Acme header</header>{{ content }}<footer>Acme footer</footer>");
    await page.getByRole("button", { name: "Create layout" }).click();
    await page.waitForURL(new RegExp(`/layouts/${LAYOUT}$`));
    const stored = await api<{ html: string; isDefault: boolean; version: number }>("GET", `/v1/layouts/${LAYOUT}`);
    expect(stored.body).toMatchObject({
      html: "<header>Acme header</header>{{ content }}<footer>Acme footer</footer>",
      isDefault: false,
      version: 1,
    });
    await screenshot(page, "layout-editor");
  });

  it("lists it, saves a second version and compares the two", async () => {
    await page.getByLabel("Name", { exact: true }).fill("Browser frame, renamed");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator('tr[data-version="2"]').waitFor();
    await page.getByRole("button", { name: "Changes in version 2" }).click();
    const diff = page.getByTestId("content-diff");
    await diff.locator('tr[data-field="name"]').waitFor();
    expect(await diff.locator("tr[data-field]").count()).toBe(1);

    await page.getByRole("link", { name: "← Layouts" }).click();
    const row = page.locator(`tr[data-key="${LAYOUT}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("Browser frame, renamed");
    // Not the default: no badge, and the button that would make it one.
    expect(await row.locator(".badge").count()).toBe(0);
    await row.getByRole("button", { name: `Make ${LAYOUT} the default` }).waitFor();
  });

  it("shows a save over someone else's change as a conflict, not a bare 412", async () => {
    await page.goto(`${base()}/dashboard/layouts/${LAYOUT}`);
    await page.getByLabel("Name", { exact: true }).waitFor();
    const current = await api<{ html: string }>("GET", `/v1/layouts/${LAYOUT}`);
    expect(
      (await api("PUT", `/v1/layouts/${LAYOUT}`, { key: LAYOUT, name: "Changed elsewhere", html: current.body.html, isDefault: false }))
        .status,
    ).toBe(200);
    await page.getByLabel("Name", { exact: true }).fill("Mine");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByTestId("conflict").waitFor();
    expect(await page.getByTestId("conflict").textContent()).toContain("Someone else changed this layout");
    expect((await api<{ name: string }>("GET", `/v1/layouts/${LAYOUT}`)).body.name).toBe("Changed elsewhere");
    await page.getByRole("button", { name: "Reload their version" }).click();
    await expect.poll(() => page.getByLabel("Name", { exact: true }).inputValue()).toBe("Changed elsewhere");
  });
});

describe.skipIf(!CHROMIUM)("an email step's layout", () => {
  it("saves the picked layout on the step, sends it with the preview, and takes none or the default back", async () => {
    const previews: string[] = [];
    page.on("request", (r) => void (r.url().endsWith("/v1/workflows/preview") && previews.push(r.postData() ?? "")));
    await page.goto(`${base()}/dashboard/workflows/${WORKFLOW}`);
    const picker = page.locator('[data-step-panel="mail"]').getByLabel("Layout");
    await picker.waitFor();
    expect(await picker.inputValue()).toBe("(default)");
    await picker.selectOption(LAYOUT);
    await expect.poll(() => previews.some((p) => p.includes(`"layout":"${LAYOUT}"`))).toBe(true);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await stepsOf())[0]?.layout).toBe(LAYOUT);

    await picker.selectOption("(none)");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => (await stepsOf())[0]?.layout).toBeNull();

    await picker.selectOption("(default)");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => "layout" in ((await stepsOf())[0] ?? {})).toBe(false);
  });

  it("refuses to delete a layout a workflow names, listing the workflow", async () => {
    const steps = await stepsOf();
    const wf = await api<{ name: string }>("GET", `/v1/workflows/${WORKFLOW}`);
    expect(
      (
        await api("PUT", `/v1/workflows/${WORKFLOW}`, {
          key: WORKFLOW,
          name: wf.body.name,
          steps: steps.map((s) => ({ ...s, layout: LAYOUT })),
        })
      ).status,
    ).toBe(200);
    await page.goto(`${base()}/dashboard/layouts`);
    await page.getByRole("button", { name: `Delete ${LAYOUT}` }).click();
    await confirmDialog(page);
    const refused = page.locator('[data-code="layout_in_use"]');
    await refused.waitFor();
    expect(await refused.getByRole("link", { name: `workflow ${WORKFLOW}` }).getAttribute("href")).toBe(
      `/dashboard/env/development/workflows/${WORKFLOW}`,
    );
    expect((await api("GET", `/v1/layouts/${LAYOUT}`)).status).toBe(200);
  });
});

describe.skipIf(!CHROMIUM)("a message's detail", () => {
  it("shows the layout version its email was wrapped in, beside the workflow version", async () => {
    // The previous test left the step naming the layout.
    const [layout, workflow] = await Promise.all([
      api<{ version: number }>("GET", `/v1/layouts/${LAYOUT}`),
      api<{ version: number }>("GET", `/v1/workflows/${WORKFLOW}`),
    ]);
    const accepted = await api<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: WORKFLOW,
      to: { subscriberId: `framed-${run}`, email: "framed@example.com" },
    });
    expect(accepted.status).toBe(202);
    const listed = async () =>
      (
        await api<{ data: { id: string; layoutVersion: number | null }[] }>(
          "GET",
          `/v1/messages?transactionId=${encodeURIComponent(accepted.body.transactionId)}`,
        )
      ).body.data;
    await expect.poll(async () => (await listed()).length, { timeout: 30_000 }).toBe(1);
    const [message] = await listed();
    expect(message?.layoutVersion).toBe(layout.body.version);

    await page.goto(`${base()}/dashboard/activity/messages/${message?.id}`);
    await expect.poll(() => page.getByTestId("layout-version").textContent()).toBe(String(layout.body.version));
    expect(await page.getByTestId("workflow-version").textContent()).toBe(String(workflow.body.version));
    expect(await page.locator("dl.facts").textContent()).toContain("Layout version");
  });
});

describe.skipIf(!CHROMIUM)("the Partials page", () => {
  it("creates a text partial, saves a second version, compares and reverts it", async () => {
    await page.goto(`${base()}/dashboard/partials/new`);
    await page.getByLabel("Key", { exact: true }).fill(PARTIAL);
    await page.getByLabel("Name", { exact: true }).fill("Footer");
    await page.getByLabel("Type").selectOption("text");
    await page.getByLabel("Content").fill("Sent by {{ sender }}");
    await page.getByRole("button", { name: "Create partial" }).click();
    await page.waitForURL(new RegExp(`/partials/${PARTIAL}$`));
    await page.getByLabel("Content").fill("Sent with care by {{ sender }}");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator('tr[data-version="2"]').waitFor();
    expect((await api<{ content: string; type: string }>("GET", `/v1/partials/${PARTIAL}`)).body).toMatchObject({
      content: "Sent with care by {{ sender }}",
      type: "text",
    });

    await page.getByRole("button", { name: "Changes in version 2" }).click();
    await page.getByTestId("content-diff").locator('tr[data-field="content"]').waitFor();
    await page.getByRole("button", { name: "Revert to version 1" }).click();
    await confirmDialog(page);
    await page.locator('tr[data-version="3"]').waitFor();
    await expect.poll(() => page.getByLabel("Content").inputValue()).toBe("Sent by {{ sender }}");
    await screenshot(page, "partial-editor");

    // Deleting from its page asks first, then goes back to the list.
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await confirmDialog(page);
    await page.waitForURL(/\/partials$/);
    expect((await api("GET", `/v1/partials/${PARTIAL}`)).status).toBe(404);
  });
});
