import type { Client, Condition, Json, JsonObject, PreviewRequest, PreviewStep, Workflow } from "../api";
import { debounce, h, mount, pretty } from "../dom";
import { problemView } from "../problem";
import type { View } from "./view";

const DEFAULT_SUBSCRIBER: JsonObject = { subscriberId: "preview-user", firstName: "Ada", email: "ada@example.com", locale: "en" };
const PREVIEW_DELAY_MS = 300;

export function workflowsView(client: Client): View {
  const list = h("nav", { class: "list", "aria-label": "Workflows" });
  const detail = h("section", { class: "detail" }, h("p", { class: "muted" }, "Choose a workflow to see its steps and preview it."));
  const root = h("div", { class: "split" }, list, detail);
  let workflows: Workflow[] = [];
  let selected: string | undefined;

  async function loadList(): Promise<void> {
    mount(list, h("p", { class: "muted" }, "Loading workflows…"));
    try {
      workflows = [];
      let cursor: string | undefined;
      do {
        const page = await client.listWorkflows({ limit: 100, cursor });
        workflows.push(...page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor && workflows.length < 1000);
      renderList();
    } catch (error) {
      mount(list, problemView(error));
    }
  }

  function renderList(): void {
    if (!workflows.length) {
      mount(list, h("p", { class: "muted" }, "No workflows yet. Create one with POST /v1/workflows."));
      return;
    }
    mount(
      list,
      h("h2", {}, `Workflows (${workflows.length})`),
      h(
        "ul",
        {},
        workflows.map((wf) =>
          h(
            "li",
            {},
            h(
              "a",
              {
                href: `#/workflows/${encodeURIComponent(wf.key)}`,
                class: wf.key === selected ? "item active" : "item",
                "data-workflow": wf.key,
              },
              h("span", { class: "item-title" }, wf.name),
              h(
                "span",
                { class: "item-sub" },
                h("code", {}, wf.key),
                ` · ${wf.steps.length} step${wf.steps.length === 1 ? "" : "s"}`,
                wf.active ? null : h("span", { class: "badge off" }, "inactive"),
              ),
            ),
          ),
        ),
      ),
    );
  }

  async function showWorkflow(key: string): Promise<void> {
    mount(detail, h("p", { class: "muted" }, "Loading…"));
    try {
      const wf = await client.getWorkflow(key);
      if (selected === key) mount(detail, workflowDetail(client, wf));
    } catch (error) {
      if (selected === key) mount(detail, problemView(error));
    }
  }

  void loadList();
  return {
    root,
    show(param) {
      if (param === selected) return;
      selected = param;
      renderList();
      if (param) void showWorkflow(param);
      else mount(detail, h("p", { class: "muted" }, "Choose a workflow to see its steps and preview it."));
    },
  };
}

function workflowDetail(client: Client, wf: Workflow): HTMLElement {
  return h(
    "div",
    { class: "workflow" },
    h(
      "header",
      {},
      h("h2", {}, wf.name, " ", wf.active ? h("span", { class: "badge ok" }, "active") : h("span", { class: "badge off" }, "inactive")),
      h("p", { class: "muted" }, h("code", {}, wf.key), wf.description ? ` — ${wf.description}` : ""),
    ),
    h(
      "div",
      { class: "columns" },
      h("div", {}, h("h3", {}, "Steps"), h("pre", { class: "json", "data-testid": "steps-json" }, pretty(wf.steps))),
      previewPanel(client, wf),
    ),
  );
}

type Parsed = { ok: true; value: JsonObject } | { ok: false; message: string };

function parseObject(text: string, what: string): Parsed {
  if (!text.trim()) return { ok: true, value: {} };
  try {
    const value = JSON.parse(text) as Json;
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, message: `The ${what} must be a JSON object.` };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `The ${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function previewPanel(client: Client, wf: Workflow): HTMLElement {
  const payload = h("textarea", { id: "preview-payload", spellcheck: "false", rows: 8, "aria-label": "Payload (JSON)" });
  payload.value = pretty(samplePayload(wf));
  const subscriber = h("textarea", { id: "preview-subscriber", spellcheck: "false", rows: 6, "aria-label": "Subscriber (JSON)" });
  subscriber.value = pretty(DEFAULT_SUBSCRIBER);
  const state = h("p", { class: "muted", "data-testid": "preview-state" });
  const results = h("div", { class: "preview-results", "data-testid": "preview-results" });
  let inFlight: AbortController | undefined;
  let generation = 0;

  async function render(): Promise<void> {
    const p = parseObject(payload.value, "payload");
    const s = parseObject(subscriber.value, "subscriber");
    payload.classList.toggle("invalid", !p.ok);
    subscriber.classList.toggle("invalid", !s.ok);
    if (!p.ok || !s.ok) {
      state.textContent = [p, s].flatMap((x) => (x.ok ? [] : [x.message])).join(" ");
      state.className = "error";
      return;
    }
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    const mine = ++generation;
    state.textContent = "Rendering…";
    state.className = "muted";
    const body: PreviewRequest = { payload: p.value, subscriber: s.value };
    try {
      const preview = await client.previewWorkflow(wf.key, body, controller.signal);
      if (mine !== generation) return;
      state.textContent = `Rendered ${new Date().toLocaleTimeString()}: ${preview.steps.filter((x) => x.wouldRun).length} of ${preview.steps.length} steps would run.`;
      mount(
        results,
        preview.steps.map((step) => stepCard(step, wf.steps.find((x) => x.id === step.id)?.if)),
      );
    } catch (error) {
      if (controller.signal.aborted || mine !== generation) return;
      state.textContent = "";
      mount(results, problemView(error));
    }
  }

  const later = debounce(() => void render(), PREVIEW_DELAY_MS);
  payload.addEventListener("input", later);
  subscriber.addEventListener("input", later);
  void render();

  return h(
    "section",
    { class: "preview", "aria-label": "Preview" },
    h("h3", {}, "Preview"),
    h("p", { class: "muted" }, "Edit the sample; the steps re-render as you type. Nothing is sent."),
    h("label", { for: "preview-payload" }, "Payload"),
    payload,
    h("label", { for: "preview-subscriber" }, "Subscriber"),
    subscriber,
    state,
    results,
  );
}

/** A starting payload: the schema's required string properties, filled with placeholders. */
function samplePayload(wf: Workflow): JsonObject {
  const schema = wf.payloadSchema;
  const out: JsonObject = {};
  if (!schema || !Array.isArray(schema.required)) return out;
  for (const name of schema.required) if (typeof name === "string") out[name] = "";
  return out;
}

/** A condition as people read it: `a and (b or not c)`. */
export function describeCondition(condition: Condition | undefined): string {
  if (!condition) return "";
  const group = (items: Condition[], joiner: string) =>
    items.length === 1 ? describeCondition(items[0]) : items.map((c) => `(${describeCondition(c)})`).join(joiner);
  if ("all" in condition) return group(condition.all, " and ");
  if ("any" in condition) return group(condition.any, " or ");
  if ("not" in condition) return `not (${describeCondition(condition.not)})`;
  const value = condition.value === undefined ? "" : ` ${JSON.stringify(condition.value)}`;
  return `${condition.field} ${condition.op}${value}`;
}

function stepCard(step: PreviewStep, condition: Condition | undefined): HTMLElement {
  const verdict = step.condition === null ? "no condition" : step.condition.result ? "condition passed" : "condition failed";
  return h(
    "article",
    { class: `step ${step.wouldRun ? "runs" : "skips"}`, "data-step": step.id, "data-would-run": String(step.wouldRun) },
    h(
      "header",
      {},
      h("strong", {}, step.id),
      h("span", { class: "muted" }, ` ${step.type}`),
      h("span", { class: `badge ${step.wouldRun ? "ok" : "off"}`, "data-testid": "verdict" }, step.wouldRun ? "would run" : "skipped"),
      h("span", { class: "muted small" }, verdict),
      step.locale ? h("span", { class: "muted small" }, ` · locale ${step.locale}`) : null,
    ),
    step.condition
      ? h(
          "p",
          { class: "condition small" },
          "if ",
          h("code", {}, describeCondition(condition)),
          " → ",
          h("strong", {}, String(step.condition.result)),
        )
      : null,
    step.condition?.leaves.length
      ? h(
          "ul",
          { class: "leaves" },
          step.condition.leaves.map((leaf) =>
            h(
              "li",
              { class: leaf.result ? "pass" : "fail" },
              leaf.result ? "✓ " : "✗ ",
              h("code", {}, `${leaf.field} ${leaf.op}${leaf.value === undefined ? "" : ` ${JSON.stringify(leaf.value)}`}`),
              h("span", { class: "muted" }, ` (actual: ${leaf.actual === undefined ? "missing" : JSON.stringify(leaf.actual)})`),
            ),
          ),
        )
      : null,
    step.error ? h("div", { class: "problem" }, h("strong", {}, "Template error"), h("p", {}, step.error.message)) : null,
    step.content ? contentView(step.content) : null,
  );
}

const TEXT_FIELDS = ["subject", "title", "body", "text"] as const;

function contentView(content: Record<string, unknown>): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const field of TEXT_FIELDS) {
    const value = content[field];
    if (typeof value === "string")
      rows.push(
        h("div", { class: "field", "data-field": field }, h("span", { class: "label" }, field), h("div", { class: "value" }, value)),
      );
  }
  const html = content.html;
  if (typeof html === "string") {
    // Rendered email HTML runs in an iframe with every sandbox restriction: no scripts, no same origin.
    rows.push(
      h(
        "div",
        { class: "field", "data-field": "html" },
        h("span", { class: "label" }, "html"),
        h("iframe", { class: "html", sandbox: "", srcdoc: html, title: "Rendered HTML" }),
      ),
    );
  }
  const rest = Object.fromEntries(Object.entries(content).filter(([k]) => k !== "html" && !(TEXT_FIELDS as readonly string[]).includes(k)));
  if (Object.keys(rest).length) rows.push(h("details", {}, h("summary", {}, "Other fields"), h("pre", { class: "json" }, pretty(rest))));
  return h("div", { class: "content" }, rows);
}
