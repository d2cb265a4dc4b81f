import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Step } from "../../dashboard/src/pages/workflows/model";
import {
  insertStep,
  moveStep,
  placeSteps,
  removeStep,
  replaceStep,
  selectionAfterRemove,
  stepsBefore,
  takenIds,
} from "../../dashboard/src/pages/workflows/tree";
import { newStep } from "../../dashboard/src/pages/workflows/model";
import { api, CHROMIUM, launch, screenshot, signIn } from "./browser";

// The workflow editor's tree: a branch with two paths built by clicking `+` buttons, saved,
// reloaded unchanged, the sample's path marked by the preview, and the phone's indented list.
let browser: Browser | undefined;
let page: Page;
const run = Date.now().toString(36);
const KEY = `tree-${run}`;

beforeAll(async () => {
  if (!CHROMIUM) return;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(10_000);
});
afterAll(async () => {
  await browser?.close();
});

/** Inserts a step of a type with the `+` of this label, as a person would: the button, then the type in the dialog. */
async function insert(on: Page, label: string, type: string) {
  await on.getByRole("button", { name: label, exact: true }).click();
  await on.getByRole("dialog", { name: label }).getByRole("button", { name: type, exact: true }).click();
  await on.getByRole("dialog").waitFor({ state: "detached" });
}

const node = (at: string) => page.locator(`.tree-node[data-at="${at}"]`);

describe.skipIf(!CHROMIUM)("the workflow editor's tree", () => {
  it("builds a branch with two paths by clicking, an email in one and an SMS in the other", async () => {
    await signIn(page, "/workflows/new");
    await page.waitForURL(/\/workflows\/new$/);
    await page.getByLabel("Name", { exact: true }).fill("Invoice routing (browser)");
    await page.getByLabel("Key", { exact: true }).fill(KEY);
    await page.getByTestId("tree-canvas").waitFor();

    await insert(page, "Add a step to the workflow", "Branch");
    const branch = page.locator('[data-step-panel="branch"]');
    const first = branch.locator('[data-path-panel="branch-a"]');
    await first.getByLabel("Path id").fill("big");
    await branch.locator('[data-path-panel="big"]').getByLabel("Path name").fill("Big invoice");
    const bigRule = branch.locator('[data-path-panel="big"] .cond-leaf');
    await bigRule.getByLabel("Field path").fill("payload.total");
    await bigRule.getByLabel("Operator").selectOption("gt");
    await bigRule.getByLabel("Value").fill("1000");

    await branch.getByRole("button", { name: "Add path" }).click();
    const second = branch.locator('[data-path-panel="branch-b"]');
    await second.getByLabel("Path id").fill("small");
    const smallRule = branch.locator('[data-path-panel="small"] .cond-leaf');
    await smallRule.getByLabel("Field", { exact: true }).selectOption({ label: "Other…" });
    await smallRule.getByLabel("Field path").fill("payload.total");
    await smallRule.getByLabel("Operator").selectOption("lte");
    await smallRule.getByLabel("Value").fill("1000");
    // Each path is labelled on the canvas with its name and condition.
    await page.locator('.tree-path[data-path="big"]').getByText("Big invoice").waitFor();
    await page.locator('.tree-path[data-path="small"]').getByText("payload.total lte 1000").waitFor();

    await insert(page, "Add a step to path Big invoice of branch", "Email");
    const email = page.locator('[data-step-panel="email"]');
    await email.locator('[data-template="subject"]').fill("Invoice of {{ payload.total }}");
    await email.locator('[data-template="html"]').fill("<p>Big one: {{ payload.total }}</p>");
    await insert(page, "Add a step to path small of branch", "SMS");
    await page.locator('[data-step-panel="sms"] [data-template="body"]').fill("Invoice {{ payload.total }}");
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.0"][data-step-row="email"]').waitFor();
    await page.locator('.tree-node[data-at="steps.0.paths.1.steps.0"][data-step-row="sms"]').waitFor();

    // Keyboard: a step's button takes focus and Enter selects it.
    await page.locator('[data-step-row="email"] .step-select').focus();
    await page.keyboard.press("Enter");
    await email.waitFor();
    expect(await page.locator('[data-step-row="email"] .step-select').getAttribute("aria-current")).toBe("step");

    // A delay inserted after the email, dragged above it, and moved back down with the panel's button.
    await insert(page, "Add a step after email", "Delay");
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.1"][data-step-row="delay"]').waitFor();
    const from = (await node("steps.0.paths.0.steps.1").boundingBox())!;
    const above = (await node("steps.0.paths.0.steps.0").boundingBox())!;
    await page.mouse.move(from.x + 30, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + 30, above.y - 10, { steps: 12 });
    await page.mouse.up();
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.0"][data-step-row="delay"]').waitFor();
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.1"][data-step-row="email"]').waitFor();
    await page.locator('[data-step-panel="delay"]').getByRole("button", { name: "Move down" }).click();
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.1"][data-step-row="delay"]').waitFor();
    await page.locator('[data-step-panel="delay"]').getByRole("button", { name: "Remove step" }).click();
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.0"][data-step-row="email"]').waitFor();
    expect(await page.locator('[data-step-row="delay"]').count()).toBe(0);
    await screenshot(page, "workflow-tree");
  });

  it("saves the tree as the API's steps and shows it unchanged after a reload", async () => {
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(new RegExp(`/workflows/${KEY}$`));
    const stored = await api<{ steps: Step[] }>("GET", `/v1/workflows/${KEY}`);
    expect(stored.status).toBe(200);
    expect(stored.body.steps).toEqual([
      {
        id: "branch",
        type: "branch",
        paths: [
          {
            id: "big",
            name: "Big invoice",
            if: { all: [{ field: "payload.total", op: "gt", value: 1000 }] },
            steps: [
              {
                id: "email",
                type: "email",
                template: { subject: "Invoice of {{ payload.total }}", html: "<p>Big one: {{ payload.total }}</p>" },
              },
            ],
          },
          {
            id: "small",
            if: { all: [{ field: "payload.total", op: "lte", value: 1000 }] },
            steps: [{ id: "sms", type: "sms", template: { body: "Invoice {{ payload.total }}" } }],
          },
        ],
      },
    ]);
    await page.reload();
    await page.locator('.tree-node[data-at="steps.0"][data-step-row="branch"]').waitFor();
    await page.locator('.tree-node[data-at="steps.0.paths.0.steps.0"][data-step-row="email"]').waitFor();
    await page.locator('.tree-node[data-at="steps.0.paths.1.steps.0"][data-step-row="sms"]').waitFor();
    await page.locator('.tree-path[data-path="big"]').getByText("payload.total gt 1000").waitFor();
    expect((await api<{ steps: Step[] }>("GET", `/v1/workflows/${KEY}`)).body.steps).toEqual(stored.body.steps);
  });

  it("marks the path the sample payload takes, on the tree and in the preview", async () => {
    const payload = page.locator("#preview-payload");
    await payload.fill('{ "total": 1500 }');
    await page.locator('.tree-path[data-path="big"][data-chosen="true"]').waitFor();
    await page.locator('.tree-path[data-path="small"][data-chosen="false"]').waitFor();
    await node("steps.0.paths.0.steps.0").and(page.locator('[data-on-path="true"]')).waitFor();
    await node("steps.0.paths.1.steps.0").and(page.locator('[data-on-path="false"]')).waitFor();
    expect(await page.locator('.preview [data-step="branch"] [data-testid="chosen-path"]').textContent()).toContain("big");
    expect(await page.locator('.preview-results [data-step="sms"]').getAttribute("data-on-path")).toBe("false");

    await payload.fill('{ "total": 12 }');
    await page.locator('.tree-path[data-path="small"][data-chosen="true"]').waitFor();
    await node("steps.0.paths.1.steps.0").and(page.locator('[data-on-path="true"]')).waitFor();
    await node("steps.0.paths.0.steps.0").and(page.locator('[data-on-path="false"]')).waitFor();

    // The selected step's rendered content stands out in the preview.
    await page.locator('[data-step-row="sms"] .step-select').click();
    await page.locator('.preview-results [data-step="sms"][data-selected="true"] [data-field="body"]').getByText("Invoice 12").waitFor();
    await screenshot(page, "workflow-tree-preview");
  });

  it("is an indented list on a 390 px phone, still editable, nothing wider than the screen", async () => {
    const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    phone.setDefaultTimeout(10_000);
    await signIn(phone, `/workflows/${KEY}`);
    await phone.locator('.tree-list [data-step-row="sms"]').waitFor();
    expect(await phone.getByTestId("tree-canvas").count()).toBe(0);
    await phone.locator('.tree-list-path[data-path="big"] [data-step-row="email"]').waitFor();
    await phone.locator('[data-step-row="sms"] .step-select').click();
    await phone.locator('[data-step-panel="sms"]').waitFor();
    await insert(phone, "Add a step after sms", "Push");
    await phone.locator('.tree-row[data-at="steps.0.paths.1.steps.1"][data-step-row="push"]').waitFor();
    await phone.getByRole("button", { name: "Move push up" }).click();
    await phone.locator('.tree-row[data-at="steps.0.paths.1.steps.0"][data-step-row="push"]').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "workflow-tree-390");
    await phone.close();
  });
});

describe("the tree's changes", () => {
  const email = (id: string): Step => ({ id, type: "email", template: { subject: "s", html: "h" } });
  const tree: Step[] = [
    email("a"),
    {
      id: "route",
      type: "branch",
      paths: [
        { id: "p1", if: { field: "steps.a.status", op: "eq", value: "sent" }, steps: [email("b"), email("c")] },
        { id: "p2", if: { field: "payload.x", op: "exists" }, steps: [] },
      ],
      default: { steps: [{ id: "w", type: "wait", until: { message: { step: "a", status: "seen" } }, timeout: "PT1H" }] },
    },
    email("d"),
  ];
  const order = (steps: Step[]) => placeSteps(steps).map((p) => `${p.at}=${p.step.id}`);

  it("walks the tree in run order, paths then the default", () => {
    expect(order(tree)).toEqual([
      "steps.0=a",
      "steps.1=route",
      "steps.1.paths.0.steps.0=b",
      "steps.1.paths.0.steps.1=c",
      "steps.1.default.steps.0=w",
      "steps.2=d",
    ]);
  });

  it("inserts into an empty path, moves within a path, removes at any depth", () => {
    const inserted = insertStep(tree, "steps.1.paths.1.steps", 0, email("e"));
    expect(inserted.at).toBe("steps.1.paths.1.steps.0");
    expect(order(inserted.steps)).toContain("steps.1.paths.1.steps.0=e");
    const moved = moveStep(tree, "steps.1.paths.0.steps.1", 0);
    expect(moved.at).toBe("steps.1.paths.0.steps.0");
    expect(order(moved.steps).slice(2, 4)).toEqual(["steps.1.paths.0.steps.0=c", "steps.1.paths.0.steps.1=b"]);
    // Out of its list: nothing moves.
    expect(moveStep(tree, "steps.1.paths.0.steps.1", 2).steps).toBe(tree);
    const removed = removeStep(tree, "steps.1.default.steps.0");
    expect(order(removed)).not.toContain("steps.1.default.steps.0=w");
    expect(selectionAfterRemove(removed, "steps.1.default.steps.0")).toBe("steps.1");
    // The original is never changed.
    expect(order(tree)).toHaveLength(6);
  });

  it("gives a new step an id no step or path anywhere in the tree has", () => {
    expect(takenIds(tree)).toEqual(["a", "route", "p1", "p2", "b", "c", "w", "d"]);
    const branch = newStep("branch", takenIds(insertStep(tree, "steps", 0, { ...email("branch-a") }).steps));
    expect(branch.id).toBe("branch");
    expect(branch.type === "branch" && branch.paths[0]?.id).toBe("branch-a-2");
    expect(newStep("email", takenIds(tree)).id).toBe("email");
    expect(newStep("email", [...takenIds(tree), "email"]).id).toBe("email-2");
  });

  it("renames what refers to a renamed step, in paths' conditions and waits too", () => {
    const renamed = replaceStep(tree, "steps.0", { ...email("first") });
    const route = renamed[1] as Extract<Step, { type: "branch" }>;
    expect(route.paths[0]?.if).toEqual({ field: "steps.first.status", op: "eq", value: "sent" });
    expect(route.default?.steps[0]).toMatchObject({ until: { message: { step: "first" } } });
  });

  it("offers a wait only the steps before it on every way there", () => {
    expect(stepsBefore(tree, "steps.1.default.steps.0").map((s) => s.id)).toEqual(["a", "route"]);
    expect(stepsBefore(tree, "steps.2").map((s) => s.id)).toEqual(["a", "route"]);
    expect(stepsBefore(tree, "steps.1.paths.0.steps.1").map((s) => s.id)).toEqual(["a", "route", "b"]);
  });
});
