import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, base, CHROMIUM, launch, screenshot, signIn, confirmDialog } from "./browser";

// A workflow built by clicking: an email, and an SMS whose condition reads the payload; previewed
// as the sample changes, saved (a field error first), activated, triggered, and listed.
let browser: Browser | undefined;
let page: Page;

const run = Date.now().toString(36);
const KEY = `order-update-${run}`;
const VARIABLE = `BRAND_${run.toUpperCase()}`;
const SUBSCRIBER = {
  subscriberId: `wf-browser-${run}`,
  email: `ada-${run}@example.com`,
  phone: `+4179${String(Date.now() % 1e7).padStart(7, "0")}`,
  firstName: "Ada",
};

interface SandboxMessage {
  channel: string;
  to: string;
  content: Record<string, unknown>;
}

async function sandboxFor(to: string[], count: number): Promise<SandboxMessage[]> {
  for (let i = 0; i < 60; i++) {
    const res = await api<{ data: SandboxMessage[] }>("GET", "/v1/sandbox/messages?limit=100");
    const mine = res.body.data.filter((m) => to.includes(m.to));
    if (mine.length >= count) return mine;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the sandbox did not get ${count} messages for ${to.join(", ")}`);
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  expect((await api("POST", "/sub", SUBSCRIBER)).status).toBeLessThan(300);
  expect((await api("POST", "/v1/variables", { key: VARIABLE, value: "Acme" })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  if (CHROMIUM) await api("DELETE", `/v1/variables/${VARIABLE}`);
});

describe.skipIf(!CHROMIUM)("the Workflows pages", () => {
  it("opens on the workflow list after sign-in", async () => {
    await signIn(page, "/");
    await page.waitForURL(/\/dashboard\/env\/development\/workflows$/);
    await page.getByRole("heading", { name: "Workflows" }).waitFor();
  });

  it("builds an email and an SMS step by clicking, with a condition on the payload", async () => {
    await page.getByRole("link", { name: "New workflow" }).click();
    await page.waitForURL(/\/workflows\/new$/);
    await page.getByLabel("Name", { exact: true }).fill("Order update (browser) – Zürich");
    // The key follows the name until it is typed in.
    expect(await page.getByLabel("Key", { exact: true }).inputValue()).toBe("order-update-browser-zurich");
    await page.getByLabel("Key", { exact: true }).fill(KEY);
    await page.getByLabel("Name", { exact: true }).fill("Order update (browser)");
    expect(await page.getByLabel("Key", { exact: true }).inputValue()).toBe(KEY);
    await page.getByRole("button", { name: "Start from an example" }).click();
    expect(await page.getByLabel("JSON Schema").inputValue()).toContain('"express"');

    await page.getByLabel("Step type").selectOption("email");
    await page.getByRole("button", { name: "Add step" }).click();
    const email = page.locator('[data-step-panel="email"]');
    await email.locator('[data-template="html"]').fill("<p>Hi {{ subscriber.firstName }}</p>");

    await page.getByLabel("Step type").selectOption("sms");
    await page.getByRole("button", { name: "Add step" }).click();
    const sms = page.locator('[data-step-panel="sms"]');
    await sms.locator('[data-template="body"]').fill("Order {{ payload.orderId }} is on its way");
    await sms.getByRole("button", { name: "Add a condition" }).click();
    const rule = sms.locator(".cond-leaf").first();
    // The payload schema's properties, the subscriber's fields and the earlier step are offered.
    const offered = await rule.getByLabel("Field", { exact: true }).locator("option").allTextContents();
    expect(offered).toEqual(
      expect.arrayContaining(["payload.orderId", "payload.express", "subscriber.email", `vars.${VARIABLE}`, "steps.email.status"]),
    );
    await rule.getByLabel("Field", { exact: true }).selectOption("payload.express");
    await rule.getByLabel("Operator").selectOption("eq");
    await rule.getByLabel("Value").fill("true");

    // Reordering is reachable from the keyboard.
    await page.getByRole("button", { name: "Move sms up" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.locator("[data-step-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-step-row")))).toEqual([
      "sms",
      "email",
    ]);
    // Focus follows the moved step: at the top, onto its other arrow.
    // Focus moves after React commits the new order: wait for it rather than read it at once.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Move sms down");
    await page.keyboard.press("Enter");
    expect(await page.locator("[data-step-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-step-row")))).toEqual([
      "email",
      "sms",
    ]);

    // A removed step comes back, in its place and with its condition, through Undo.
    await page.getByRole("button", { name: "Remove sms" }).click();
    await page.locator('[data-step-row="sms"]').waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Undo" }).click();
    expect(await page.locator("[data-step-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-step-row")))).toEqual([
      "email",
      "sms",
    ]);
    await page.locator('[data-step-row="sms"] .step-select').click();
    expect(await page.locator('[data-step-panel="sms"] .cond-leaf').count()).toBe(1);
    expect(await page.getByRole("button", { name: "Undo" }).count()).toBe(0);
  });

  it("re-renders the preview as the sample payload changes, debounced, and never with invalid JSON", async () => {
    const smsCard = page.locator('.preview [data-step="sms"]');
    const emailCard = page.locator('.preview [data-step="email"]');
    // The starting sample has express: false.
    await page.locator('.preview [data-step="sms"][data-would-run="false"]').waitFor();

    const previews: string[] = [];
    page.on("request", (r) => void (r.url().endsWith("/v1/workflows/preview") && previews.push(r.postData() ?? "")));
    await page.fill("#preview-payload", "");
    await page.locator("#preview-payload").pressSequentially('{ "orderId": "B-2002", "express": true }', { delay: 15 });
    await page.locator('.preview [data-step="sms"][data-would-run="true"]').waitFor();
    expect(previews.length).toBeLessThanOrEqual(2);
    expect(JSON.parse(previews.at(-1) ?? "{}")).toMatchObject({ payload: { orderId: "B-2002", express: true } });
    expect(await smsCard.locator('[data-field="body"] .value').textContent()).toBe("Order B-2002 is on its way");
    expect(await smsCard.locator(".leaves li").textContent()).toContain("payload.express eq true");
    // The email has no subject yet: its card says so, and the SMS still renders.
    const invalid = (await emailCard.locator('.problem[data-code="invalid_step"]').textContent()) ?? "";
    expect(invalid).toContain("template.subject: Required");
    expect(invalid).not.toMatch(/Too small|Invalid input|expected string/);

    // The template change shows up without touching the sample.
    await page.locator('[data-step-row="email"] .step-select').click();
    await page.locator('[data-step-panel="email"] [data-template="subject"]').fill("Order {{ payload.orderId }} ships today");
    await page.waitForFunction(
      () =>
        document.querySelector('.preview [data-step="email"] [data-field="subject"] .value')?.textContent === "Order B-2002 ships today",
    );
    expect(await emailCard.getAttribute("data-would-run")).toBe("true");

    // A German variant of the subject, picked by the sample subscriber's locale.
    const emailPanel = page.locator('[data-step-panel="email"]');
    await emailPanel.getByLabel("New locale").fill("de");
    await emailPanel.getByRole("button", { name: "+ Locale" }).click();
    await emailPanel.locator('[data-locale="de"] [data-template="subject"]').fill("Bestellung {{ payload.orderId }} kommt heute");
    await page.fill("#preview-subscriber", JSON.stringify({ firstName: "Ada", locale: "de-CH" }));
    await page.waitForFunction(
      () =>
        document.querySelector('.preview [data-step="email"] [data-field="subject"] .value')?.textContent ===
        "Bestellung B-2002 kommt heute",
    );
    expect(await emailCard.textContent()).toContain("locale de");

    const before = previews.length;
    await page.fill("#preview-payload", '{ "orderId": ');
    await page.getByText("The payload is not valid JSON").waitFor();
    await page.waitForTimeout(600);
    expect(previews.length).toBe(before);
    await page.fill("#preview-payload", '{ "orderId": "B-2002", "express": true }');
    await page.locator('[data-testid="preview-state"]').getByText("2 of 2 steps would run").waitFor();
  });

  it("shows a problem document in the preview readably", async () => {
    await page.fill("#preview-subscriber", '{ "email": "not-an-email" }');
    const problem = page.locator(".preview > .problem");
    await problem.waitFor();
    expect(await problem.textContent()).toContain("422");
    expect(await problem.textContent()).toContain("subscriber.email");
    await page.fill("#preview-subscriber", JSON.stringify({ firstName: "Ada", locale: "en" }));
    await problem.waitFor({ state: "detached" });
  });

  it("puts a save's validation errors on their fields, then creates the workflow", async () => {
    await page.locator('[data-step-panel="email"]').getByRole("tab", { name: "Default" }).click();
    const subject = page.locator('[data-step-panel="email"] [data-template="subject"]');
    await subject.fill("");
    await page.getByRole("button", { name: "Create" }).click();
    await page.locator('[data-step-panel="email"] [data-template="subject"][aria-invalid="true"]').waitFor();
    expect(await page.locator('main > .problem[data-code="validation_failed"]').textContent()).toContain("steps.0.template.subject");
    const describedBy = await subject.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${describedBy?.split(" ")[0]}"]`).textContent()).toBeTruthy();
    expect(await page.locator('[data-step-row="email"] .badge.bad').count()).toBe(1);
    // In words, not in the validator's.
    const message = (await page.locator(`[id="${describedBy?.split(" ")[0]}"]`).textContent()) ?? "";
    expect(message).not.toMatch(/Too small|Invalid input|expected string/);

    // Fixing the field clears its error and the banner before the next save.
    await subject.fill("Order {{ payload.orderId }} ships today");
    await page.locator('[data-step-panel="email"] [data-template="subject"][aria-invalid="true"]').waitFor({ state: "detached" });
    await page.locator('main > .problem[data-code="validation_failed"]').waitFor({ state: "detached" });
    expect(await page.locator('[data-step-row="email"] .badge.bad').count()).toBe(0);
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(new RegExp(`/workflows/${KEY}$`));
    // A new workflow starts active, in the editor as through the API.
    await page.getByTestId("workflow-status").getByText("active", { exact: true }).waitFor();
    const stored = await api<{ steps: { id: string; if?: unknown; locales?: unknown }[]; active: boolean }>("GET", `/v1/workflows/${KEY}`);
    expect(stored.body.active).toBe(true);
    expect(stored.body.steps.map((s) => s.id)).toEqual(["email", "sms"]);
    expect(stored.body.steps[1]?.if).toEqual({ all: [{ field: "payload.express", op: "eq", value: true }] });
    expect(stored.body.steps[0]).toMatchObject({ locales: { de: { subject: "Bestellung {{ payload.orderId }} kommt heute" } } });
    await screenshot(page, "workflow-editor");
  });

  it("deactivates and activates the workflow; a trigger through the API sends the email and, for an express order, the SMS", async () => {
    await page.getByRole("button", { name: "Deactivate" }).click();
    await page.getByTestId("workflow-status").getByText("inactive", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Activate" }).click();
    await page.getByTestId("workflow-status").getByText("active", { exact: true }).waitFor();
    expect((await api<{ active: boolean }>("GET", `/v1/workflows/${KEY}`)).body.active).toBe(true);

    const accepted = await api<{ transactionId: string }>("POST", "/v1/trigger", {
      workflow: KEY,
      to: SUBSCRIBER.subscriberId,
      payload: { orderId: "B-2002", express: true },
    });
    expect(accepted.status).toBe(202);
    const sent = await sandboxFor([SUBSCRIBER.email, SUBSCRIBER.phone], 2);
    const mail = sent.find((m) => m.channel === "email");
    const text = sent.find((m) => m.channel === "sms");
    expect(JSON.stringify(mail?.content)).toContain("Order B-2002 ships today");
    expect(JSON.stringify(text?.content)).toContain("Order B-2002 is on its way");
  });

  it("sends a test of the draft to a chosen subscriber, after a warning for an unknown one, and links its transaction", async () => {
    await page.getByRole("button", { name: "Deactivate" }).click();
    await page.getByTestId("workflow-status").getByText("inactive", { exact: true }).waitFor();
    await page.fill("#preview-payload", '{ "orderId": "T-1", "express": false }');
    const sent: string[] = [];
    page.on("request", (r) => void (r.method() === "POST" && r.url().includes("/test") && sent.push(r.url())));
    await page.getByLabel("Subscriber id").fill(`nobody-${run}`);
    await page.getByRole("button", { name: "Send test" }).click();
    await page.getByTestId("unknown-subscriber").waitFor();
    expect(await page.getByTestId("unknown-subscriber").textContent()).toContain(`nobody-${run}`);
    expect(sent).toEqual([]);

    await page.getByLabel("Subscriber id").fill(SUBSCRIBER.subscriberId);
    await page.getByTestId("unknown-subscriber").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Send test" }).click();
    const link = page.getByTestId("test-transaction");
    const transaction = await link.textContent();
    expect(transaction).toBeTruthy();
    expect(await link.getAttribute("href")).toBe(`/dashboard/env/development/activity/triggers/${encodeURIComponent(transaction!)}`);
    expect(sent).toHaveLength(1);
    // express is false: the email goes out, the SMS is skipped.
    for (let i = 0; i < 60; i++) {
      const res = await api<{ data: { stepId: string; status: string }[] }>(
        "GET",
        `/v1/messages?transactionId=${encodeURIComponent(transaction!)}`,
      );
      const email = res.body.data.find((m) => m.stepId === "email");
      if (email && email.status !== "queued" && email.status !== "sending") {
        expect(email.status).toBe("sent");
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const mails = await sandboxFor([SUBSCRIBER.email], 2);
    expect(mails.some((m) => JSON.stringify(m.content).includes("Order T-1 ships today"))).toBe(true);
    await page.getByRole("button", { name: "Activate" }).click();
    await page.getByTestId("workflow-status").getByText("active", { exact: true }).waitFor();
  });

  it("keeps a saved workflow's key read-only and duplicates it under a new key", async () => {
    expect(await page.getByLabel("Key", { exact: true }).getAttribute("readonly")).not.toBeNull();
    await page.getByRole("button", { name: "Duplicate" }).click();
    await page.waitForURL(/\/workflows\/new$/);
    const key = page.getByLabel("Key", { exact: true });
    // The router renders the new page in a transition: the URL can change while the saved editor is still shown.
    await expect.poll(() => key.inputValue()).toBe(`${KEY}-copy`);
    expect(await key.getAttribute("readonly")).toBeNull();
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Order update (browser) (copy)");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(new RegExp(`/workflows/${KEY}-copy$`));
    const [original, copy] = await Promise.all(
      [KEY, `${KEY}-copy`].map((k) => api<{ steps: unknown[]; payloadSchema: unknown }>("GET", `/v1/workflows/${k}`)),
    );
    expect(copy!.body.steps).toEqual(original!.body.steps);
    expect(copy!.body.payloadSchema).toEqual(original!.body.payloadSchema);
    expect((await api("DELETE", `/v1/workflows/${KEY}-copy`)).status).toBe(204);
    await page.goto(`${base()}/dashboard/workflows/${KEY}`);
    await page.locator('[data-step-row="sms"]').waitFor();
  });

  it("lists the workflow with search, the active filter and when it was last triggered", async () => {
    await page.getByRole("link", { name: "Workflows" }).first().click();
    await page.getByLabel("Search").fill(run);
    const row = page.locator(`tr[data-workflow="${KEY}"]`);
    await row.waitFor();
    // The row is there before the debounced search narrows the list to it.
    await expect.poll(() => page.locator("tr[data-workflow]").count()).toBe(1);
    expect(await row.textContent()).toContain("active");
    // The trigger record is written moments after the 202.
    for (let i = 0; i < 30 && (await row.getByTestId("last-triggered").textContent()) === "never"; i++) {
      await page.reload();
      await page.getByLabel("Search").fill(run);
      await row.waitFor();
    }
    expect(await row.getByTestId("last-triggered").textContent()).not.toBe("never");
    await screenshot(page, "workflows-list");
    await page.getByLabel("Status").selectOption("false");
    await page.getByText("No workflow matches.").waitFor();
    await page.getByLabel("Status").selectOption("true");
    await row.waitFor();
  });

  it("fits a 390 px phone: list and editor, nothing wider than the screen", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(phone, "/workflows");
    await phone.locator(`tr[data-workflow="${KEY}"]`).waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await phone.goto(`${base()}/dashboard/workflows/${KEY}`);
    await phone.locator('[data-step-row="sms"]').waitFor();
    await phone.locator('[data-step-row="sms"] .step-select').click();
    await phone.locator('[data-step-panel="sms"] .cond-leaf').waitFor();
    await phone.locator('.preview [data-step="sms"]').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "workflow-editor-390");
    await phone.close();
  });
});

describe.skipIf(!CHROMIUM)("the workflow editor's flow steps and nested conditions", () => {
  it("adds a delay, a throttle and a digest, nests a negated group in a condition, and saves them as the API's steps", async () => {
    await page.goto(`${base()}/dashboard/workflows/${KEY}`);
    await page.locator('[data-step-row="sms"] .step-select').click();
    const sms = page.locator('[data-step-panel="sms"]');
    await sms.getByRole("button", { name: "+ Group" }).click();
    const nested = sms.locator(".cond-group .cond-group");
    await nested.getByLabel("Match").selectOption("any");
    const rule = nested.locator(".cond-leaf").first();
    await rule.getByLabel("Field", { exact: true }).selectOption("subscriber.locale");
    await rule.getByLabel("Operator").selectOption("in");
    await rule.getByLabel("Values").fill("de, fr");
    await nested.getByRole("button", { name: "Negate group" }).click();
    await sms.locator(".cond-not").waitFor();
    // A rule on the earlier step, which then follows it when it is renamed.
    await sms.getByRole("button", { name: "+ Rule" }).last().click();
    const onEmail = sms.locator(".cond-leaf").last();
    await onEmail.getByLabel("Field", { exact: true }).selectOption("steps.email.status");
    await onEmail.getByLabel("Value").fill("sent");
    await page.locator('[data-step-row="email"] .step-select').click();
    await page.locator('[data-step-panel="email"]').getByLabel("Step id").fill("mail");
    await page.locator('[data-step-row="mail"]').waitFor();

    const add = async (type: string) => {
      await page.getByLabel("Step type").selectOption(type);
      await page.getByRole("button", { name: "Add step" }).click();
      return page.locator(`[data-step-panel="${type}"]`);
    };
    const delay = await add("delay");
    await delay.getByLabel("Duration").fill("2");
    await delay.getByLabel("Unit").selectOption("H");
    const throttle = await add("throttle");
    await throttle.getByLabel("At most").fill("3");
    await throttle.getByLabel("Unit").selectOption("D");
    const digest = await add("digest");
    await digest.getByLabel("Window").fill("10");
    await digest.getByLabel("Unit").selectOption("M");
    await digest.getByLabel("Group by").fill("{{ payload.orderId }}");
    const chat = await add("chat");
    await chat.locator('[data-template="text"]').fill("Order {{ payload.orderId }}");
    await chat.getByLabel("Blocks").fill('[{ "type": "section" }]');
    const bell = await add("in_app");
    // Step types in words: the API's keys stay in the values.
    expect(await page.getByLabel("Step type").locator("option").allTextContents()).toEqual([
      "Email",
      "SMS",
      "Push",
      "Chat",
      "In-app",
      "Delay",
      "Digest",
      "Throttle",
      "Branch",
      "Fetch",
      "Wait for event",
      "Trigger workflow",
      "Update subscriber",
    ]);
    expect(await page.locator('[data-step-row="in_app"] .step-type').textContent()).toBe("In-app");
    expect(await bell.locator(".step-type").first().textContent()).toBe("In-app");
    await bell.locator('[data-template="body"]').fill("Order {{ payload.orderId }} shipped");
    await bell.getByLabel("Primary action").fill('{ "label": "Track {{ payload.orderId }}" }');

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved.").waitFor();
    const stored = await api<{ steps: Record<string, unknown>[] }>("GET", `/v1/workflows/${KEY}`);
    expect(stored.body.steps.slice(2)).toEqual([
      { id: "delay", type: "delay", for: "PT2H" },
      { id: "throttle", type: "throttle", window: "P1D", limit: 3 },
      { id: "digest", type: "digest", window: "PT10M", mode: "fixed", key: "{{ payload.orderId }}" },
      { id: "chat", type: "chat", template: { text: "Order {{ payload.orderId }}", blocks: [{ type: "section" }] } },
      {
        id: "in_app",
        type: "in_app",
        template: { body: "Order {{ payload.orderId }} shipped", primaryAction: { label: "Track {{ payload.orderId }}" } },
      },
    ]);
    expect(stored.body.steps[0]?.id).toBe("mail");
    expect(stored.body.steps[1]?.if).toEqual({
      all: [
        { field: "payload.express", op: "eq", value: true },
        { not: { any: [{ field: "subscriber.locale", op: "in", value: ["de", "fr"] }] } },
        { field: "steps.mail.status", op: "eq", value: "sent" },
      ],
    });
  });
});

describe.skipIf(!CHROMIUM)("leaving the workflow editor", () => {
  it("asks before unsaved changes are left behind, and stays when told to", async () => {
    await page.goto(`${base()}/dashboard/workflows/${KEY}`);
    const name = page.getByLabel("Name", { exact: true });
    await name.waitFor();
    await name.fill("Changed, not saved");
    await page.getByRole("link", { name: "Activity" }).click();
    const asked = page.getByRole("dialog", { name: "Leave without saving?" });
    await asked.waitFor();
    expect(await asked.textContent()).toContain("unsaved changes");
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "hidden" });
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`/workflows/${KEY}$`));
    expect(await name.inputValue()).toBe("Changed, not saved");

    await page.getByRole("link", { name: "Activity" }).click();
    await confirmDialog(page);
    await page.waitForURL(/\/dashboard\/env\/development\/activity/);
  });
});

describe.skipIf(!CHROMIUM)("the preview's sample payload", () => {
  const SCHEMA_KEY = `sample-schema-${run}`;
  const PLAIN_KEY = `sample-plain-${run}`;
  const sms = (body: string) => [{ id: "text", type: "sms", template: { body } }];
  const samplePayload = async () => JSON.parse(await page.locator("#preview-payload").inputValue()) as unknown;

  beforeAll(async () => {
    if (!CHROMIUM) return;
    const payloadSchema = {
      type: "object",
      properties: {
        order: { type: "object", properties: { id: { type: "string", examples: ["A-1"] }, total: { type: "number" } } },
        express: { type: "boolean" },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
      },
    };
    const withSchema = { key: SCHEMA_KEY, name: "Sample from schema", payloadSchema, steps: sms("Order {{ payload.order.id }}") };
    expect((await api("POST", "/v1/workflows", withSchema)).status).toBe(201);
    const plain = { key: PLAIN_KEY, name: "Sample from templates", steps: sms("{{ payload.order.id }} for {{ payload.customer }}") };
    expect((await api("POST", "/v1/workflows", plain)).status).toBe(201);
  });

  it("starts from the payload schema, nested properties included", async () => {
    await page.goto(`${base()}/dashboard/workflows/${SCHEMA_KEY}`);
    await page.locator("#preview-payload").waitFor();
    expect(await samplePayload()).toEqual({ order: { id: "A-1", total: 0 }, express: false, items: [{ sku: "" }] });
  });

  it("starts from what the templates read when there is no schema", async () => {
    await page.goto(`${base()}/dashboard/workflows/${PLAIN_KEY}`);
    await page.locator("#preview-payload").waitFor();
    expect(await samplePayload()).toEqual({ order: { id: "" }, customer: "" });
  });

  it("keeps the last sample of each workflow for the next visit", async () => {
    await page.goto(`${base()}/dashboard/workflows/${SCHEMA_KEY}`);
    await page.fill("#preview-payload", '{ "order": { "id": "KEPT-9" } }');
    await page.locator('.preview [data-field="body"] .value').getByText("Order KEPT-9").waitFor();
    await page.reload();
    await page.locator("#preview-payload").waitFor();
    expect(await samplePayload()).toEqual({ order: { id: "KEPT-9" } });
    // Another workflow keeps its own.
    await page.goto(`${base()}/dashboard/workflows/${PLAIN_KEY}`);
    await page.locator("#preview-payload").waitFor();
    expect(await samplePayload()).toEqual({ order: { id: "" }, customer: "" });
  });
});
