import { describe, expect, it } from "vitest";
import type { PreviewResponse as PreviewBody } from "../../src/features/workflows/preview-schemas";
import { api, errorPaths, expectProblem } from "../request";
import { createEnvironment, createWorkflow } from "../factories";

const steps = [
  {
    id: "email-1",
    type: "email",
    if: { field: "payload.total", op: "gte", value: 100 },
    template: {
      subject: "Order {{ payload.orderId }} for {{ subscriber.firstName }}",
      html: "<p>{{ payload.note }}</p><p>{{ vars.BRAND }}</p>",
    },
    locales: { de: { subject: "Bestellung {{ payload.orderId }}" } },
  },
  { id: "wait", type: "delay", for: "PT1H" },
  {
    id: "sms-1",
    type: "sms",
    if: {
      all: [
        { field: "steps.email-1.status", op: "ne", value: "sent" },
        { field: "subscriber.phone", op: "exists" },
      ],
    },
    template: { body: "{{ payload.orderId }} {{ vars.TOKEN }}" },
  },
];

async function setup() {
  const { key } = await createEnvironment();
  const workflow = await createWorkflow(key, { steps });
  return { key, workflowKey: workflow.key };
}

describe("POST /v1/workflows/{key}/preview", () => {
  it("reports each condition and renders each channel step", async () => {
    const { key, workflowKey } = await setup();
    expect((await api(key, "POST", "/v1/variables", { key: "BRAND", value: "Clarion" })).status).toBe(201);
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflowKey}/preview`, {
      payload: { orderId: "A-7", total: 150, note: "<script>x</script>" },
      subscriber: { subscriberId: "s-1", firstName: "Ada", locale: "en-GB" },
      steps: { "email-1": { status: "sent" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.workflow).toBe(workflowKey);
    expect(res.body.steps).toEqual([
      {
        id: "email-1",
        type: "email",
        condition: { result: true, leaves: [{ field: "payload.total", op: "gte", value: 100, actual: 150, result: true }] },
        wouldRun: true,
        onPath: true,
        assumedStatus: "sent",
        locale: null,
        content: { subject: "Order A-7 for Ada", html: "<p>&lt;script&gt;x&lt;/script&gt;</p><p>Clarion</p>" },
      },
      { id: "wait", type: "delay", condition: null, wouldRun: true, onPath: true, assumedStatus: "sent", locale: null },
      {
        id: "sms-1",
        type: "sms",
        condition: {
          result: false,
          leaves: [
            { field: "steps.email-1.status", op: "ne", value: "sent", actual: "sent", result: false },
            { field: "subscriber.phone", op: "exists", result: false },
          ],
        },
        wouldRun: false,
        onPath: true,
        assumedStatus: "skipped",
        locale: null,
        content: { body: "A-7 " },
      },
    ]);
  });

  it("flips the conditions with another sample and picks the subscriber's locale", async () => {
    const { key, workflowKey } = await setup();
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflowKey}/preview`, {
      payload: { orderId: "B-2", total: 20 },
      subscriber: { locale: "de-CH", phone: "+41791234567" },
    });
    expect(res.status).toBe(200);
    const [email, , sms] = res.body.steps;
    expect(email).toMatchObject({ wouldRun: false, locale: "de", content: { subject: "Bestellung B-2" } });
    expect(sms).toMatchObject({ wouldRun: true, condition: { result: true } });
  });

  describe("earlier steps' status", () => {
    const chained = [
      { id: "mail", type: "email", template: { subject: "S", text: "T" } },
      { id: "text", type: "sms", if: { field: "steps.mail.status", op: "eq", value: "sent" }, template: { body: "B" } },
    ];
    const previewOf = async (steps: unknown[], body: Record<string, unknown>) => {
      const { key } = await createEnvironment();
      const workflow = await createWorkflow(key, { steps });
      const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, body);
      expect(res.status).toBe(200);
      return res.body.steps;
    };

    it("counts an earlier step as sent when the request does not say", async () => {
      const [mail, text] = await previewOf(chained, {});
      expect(mail).toMatchObject({ assumedStatus: "sent" });
      expect(text).toMatchObject({
        wouldRun: true,
        condition: { result: true, leaves: [{ field: "steps.mail.status", actual: "sent", result: true }] },
      });
    });

    it("uses the status the request gives for a step", async () => {
      const [mail, text] = await previewOf(chained, { steps: { mail: { status: "failed" } } });
      expect(mail).toMatchObject({ assumedStatus: "failed" });
      expect(text).toMatchObject({
        wouldRun: false,
        condition: { result: false, leaves: [{ field: "steps.mail.status", actual: "failed", result: false }] },
      });
    });

    it("counts an earlier step whose condition is false as skipped", async () => {
      const gated = [{ ...chained[0], if: { field: "payload.vip", op: "eq", value: true } }, chained[1]];
      const [mail, text] = await previewOf(gated, { payload: { vip: false } });
      expect(mail).toMatchObject({ wouldRun: false, assumedStatus: "skipped" });
      expect(text).toMatchObject({ wouldRun: false, condition: { leaves: [{ actual: "skipped" }] } });
    });

    it("does not show a step the status of a later one", async () => {
      const backwards = [
        { id: "text", type: "sms", if: { field: "steps.mail.status", op: "exists" }, template: { body: "B" } },
        { id: "mail", type: "email", template: { subject: "S", text: "T" } },
      ];
      const [text] = await previewOf(backwards, {});
      expect(text).toMatchObject({ wouldRun: false });
    });
  });

  it("renders a secret variable as its placeholder", async () => {
    const { key, workflowKey } = await setup();
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: "tok-very-secret", secret: true })).status).toBe(201);
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflowKey}/preview`, { payload: { orderId: "C-3" } });
    expect(res.status).toBe(200);
    const body = res.body.steps.find((s) => s.id === "sms-1")?.content?.body;
    expect(body).toBe("C-3 [secret:TOKEN]");
  });

  const SECRET = "sk_live/Zq81+xPw0";
  it.each([
    ["upcase", "{{ vars.KEY | upcase }}"],
    ["downcase", "{{ vars.KEY | downcase }}"],
    ["base64_encode", "{{ vars.KEY | base64_encode }}"],
    ["slice", "{{ vars.KEY | slice: 3, 5 }}"],
    ["reverse", "{{ vars.KEY | split: '' | reverse | join: '' }}"],
    ["url_encode", "{{ vars.KEY | url_encode }}"],
  ])("shows no part of a secret variable through %s", async (_filter, template) => {
    const { key } = await createEnvironment();
    expect((await api(key, "POST", "/v1/variables", { key: "KEY", value: SECRET, secret: true })).status).toBe(201);
    const workflow = await createWorkflow(key, { steps: [{ id: "sms", type: "sms", template: { body: template } }] });
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, { payload: {} });
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body);
    for (const part of [SECRET, SECRET.toUpperCase(), btoa(SECRET), SECRET.slice(3, 8), "Zq81", "xPw0", "0wPx"])
      expect(text).not.toContain(part);
  });

  it("evaluates a condition on a secret variable against its placeholder, not its value", async () => {
    const { key } = await createEnvironment();
    expect((await api(key, "POST", "/v1/variables", { key: "KEY", value: SECRET, secret: true })).status).toBe(201);
    const workflow = await createWorkflow(key, {
      steps: [{ id: "sms", type: "sms", if: { field: "vars.KEY", op: "eq", value: SECRET }, template: { body: "hi" } }],
    });
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, { payload: {} });
    expect(res.body.steps[0]?.wouldRun).toBe(false);
  });

  it("reports a template error on its step and still previews the others", async () => {
    const { key } = await createEnvironment();
    const workflow = await createWorkflow(key, {
      steps: [
        // Parses (so it saves) but fails when rendered: the loop passes the render's limits.
        { id: "bad", type: "email", template: { subject: "{% for i in (1..100000000) %}{% endfor %}", text: "Hello" } },
        { id: "good", type: "sms", template: { body: "ok" } },
      ],
    });
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, {});
    expect(res.status).toBe(200);
    expect(res.body.steps[0]).toMatchObject({
      id: "bad",
      error: { code: "template_error", message: expect.stringMatching(/limit exceeded/) },
    });
    expect(res.body.steps[0]?.content).toBeUndefined();
    expect(res.body.steps[1]).toMatchObject({ id: "good", content: { body: "ok" } });
  });

  it("applies overrides over the rendered content", async () => {
    const { key, workflowKey } = await setup();
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflowKey}/preview`, {
      payload: { orderId: "D-4", total: 500 },
      overrides: { email: { subject: "Fixed subject" } },
    });
    expect(res.body.steps[0]?.content?.subject).toBe("Fixed subject");
  });

  it("answers 404 for an unknown workflow", async () => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "POST", "/v1/workflows/nope/preview", {}), 404, "workflow_not_found");
  });

  it("rejects an unknown body field", async () => {
    const { key, workflowKey } = await setup();
    expectProblem(await api(key, "POST", `/v1/workflows/${workflowKey}/preview`, { payloads: {} }), 422, "validation_failed");
  });

  it("does not preview another environment's workflow", async () => {
    const { workflowKey } = await setup();
    const other = await createEnvironment();
    expectProblem(await api(other.key, "POST", `/v1/workflows/${workflowKey}/preview`, {}), 404, "workflow_not_found");
  });
});

describe("POST /v1/workflows/preview", () => {
  it("previews steps that are not saved, as a saved workflow's", async () => {
    const { key } = await createEnvironment();
    expect((await api(key, "POST", "/v1/variables", { key: "BRAND", value: "Clarion" })).status).toBe(201);
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", {
      workflow: { steps },
      payload: { orderId: "A-7", total: 150, note: "n" },
      subscriber: { firstName: "Ada", locale: "de" },
    });
    expect(res.status).toBe(200);
    expect(res.body.workflow).toBe("draft");
    expect(res.body.steps.map((s) => [s.id, s.wouldRun])).toEqual([
      ["email-1", true],
      ["wait", true],
      ["sms-1", false],
    ]);
    expect(res.body.steps[0]).toMatchObject({ locale: "de", content: { subject: "Bestellung A-7", html: "<p>n</p><p>Clarion</p>" } });
  });

  it("previews a half-written workflow: no key, an email without a body", async () => {
    const { key } = await createEnvironment();
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", {
      workflow: { steps: [{ id: "e", type: "email", template: { subject: "Hi {{ payload.name }}" } }] },
      payload: { name: "Ada" },
    });
    expect(res.status).toBe(200);
    expect(res.body.steps[0]?.content).toEqual({ subject: "Hi Ada" });
  });

  it("shows a step that is not valid yet on its own card and still previews the others", async () => {
    const { key } = await createEnvironment();
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", {
      workflow: {
        steps: [
          { id: "mail", type: "email", template: { subject: "" } },
          { id: "text", type: "sms", if: { field: "steps.mail.status", op: "exists" }, template: { body: "Hi {{ payload.name }}" } },
        ],
      },
      payload: { name: "Ada" },
    });
    expect(res.status).toBe(200);
    expect(res.body.steps[0]).toEqual({
      id: "mail",
      type: "email",
      condition: null,
      wouldRun: false,
      onPath: false,
      assumedStatus: "skipped",
      locale: null,
      error: { code: "invalid_step", message: expect.stringContaining("template.subject") },
    });
    // Left out of the run: the later step does not see it.
    expect(res.body.steps[1]).toMatchObject({ id: "text", wouldRun: false, content: { body: "Hi Ada" } });
  });

  it("refuses conditions nested deeper than a saved workflow may, on the step's card", async () => {
    const { key } = await createEnvironment();
    let condition: unknown = { field: "payload.a", op: "exists" };
    for (let i = 0; i < 11; i++) condition = { not: condition };
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", {
      workflow: { steps: [{ id: "s", type: "sms", if: condition, template: { body: "b" } }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.steps[0]?.error).toEqual({ code: "invalid_step", message: expect.stringContaining("nest at most") });
  });

  it.each([
    ["a step that is not an object", { steps: ["email"] }, "workflow.steps.0"],
    [
      "more than 30 steps",
      { steps: Array.from({ length: 31 }, (_, i) => ({ id: `s${i}`, type: "sms", template: { body: "b" } })) },
      "workflow.steps",
    ],
  ])("refuses %s with 422", async (_what, workflow, path) => {
    const { key } = await createEnvironment();
    const problem = expectProblem(await api(key, "POST", "/v1/workflows/preview", { workflow }), 422, "validation_failed");
    expect(errorPaths(problem)).toContain(path);
  });

  it("requires the workflow's steps", async () => {
    const { key } = await createEnvironment();
    expect(errorPaths(expectProblem(await api(key, "POST", "/v1/workflows/preview", { payload: {} }), 422, "validation_failed"))).toContain(
      "workflow",
    );
  });
});

describe("previews render emails as sent: in their layout, with partials", () => {
  const frame = (k: string, html: string, isDefault = false, text?: string) => ({
    key: k,
    name: k,
    html,
    isDefault,
    ...(text ? { text } : {}),
  });
  const html = '<p>Hi {{ subscriber.firstName }}</p>{% render "sig", who: "Acme" %}';
  const emailSteps = [
    { id: "named", type: "email", layout: "brand", template: { subject: "a", html } },
    { id: "default", type: "email", template: { subject: "b", html } },
    { id: "none", type: "email", layout: null, template: { subject: "c", html } },
  ];

  async function withContent() {
    const { key } = await createEnvironment();
    expect((await api(key, "POST", "/v1/layouts", frame("plain", "<i>{{ content }}</i>", true))).status).toBe(201);
    expect((await api(key, "POST", "/v1/layouts", frame("brand", "<b>{{ content }}</b>", false, "== {{ content }} =="))).status).toBe(201);
    expect((await api(key, "POST", "/v1/partials", { key: "sig", name: "Sig", content: "-- {{ who }}", type: "html" })).status).toBe(201);
    return key;
  }
  const sample = { payload: {}, subscriber: { subscriberId: "s-1", firstName: "Ada" } };
  const contents = (body: PreviewBody) => Object.fromEntries(body.steps.map((s) => [s.id, s.content]));

  it("wraps a saved workflow's emails in the named layout, the default, or none", async () => {
    const key = await withContent();
    const workflow = await createWorkflow(key, { steps: emailSteps });
    const res = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, sample);
    expect(res.status).toBe(200);
    expect(contents(res.body)).toEqual({
      named: { subject: "a", html: "<b><p>Hi Ada</p>-- Acme</b>", text: "== Hi Ada\n\n-- Acme ==" },
      default: { subject: "b", html: "<i><p>Hi Ada</p>-- Acme</i>", text: "Hi Ada\n\n-- Acme" },
      none: { subject: "c", html: "<p>Hi Ada</p>-- Acme" },
    });
  });

  it("renders a draft with the current versions of its layout and partials", async () => {
    const key = await withContent();
    expect((await api(key, "PUT", "/v1/layouts/plain", frame("plain", "<u>{{ content }}</u>", true))).status).toBe(200);
    expect((await api(key, "PUT", "/v1/partials/sig", { key: "sig", name: "Sig", content: "~ {{ who }}", type: "html" })).status).toBe(200);
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", { workflow: { steps: [emailSteps[1]] }, ...sample });
    expect(res.body.steps[0]?.content).toMatchObject({ html: "<u><p>Hi Ada</p>~ Acme</u>" });
  });

  it("says on the step's card when a draft names a layout that does not exist", async () => {
    const key = await withContent();
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", {
      workflow: { steps: [{ ...emailSteps[0], layout: "missing" }] },
      ...sample,
    });
    expect(res.status).toBe(200);
    expect(res.body.steps[0]?.error).toEqual({ code: "template_error", message: expect.stringContaining('"missing"') });
  });
});

describe("previewing a workflow tree", () => {
  const tree = [
    { id: "account", type: "http", request: { method: "GET", url: "https://crm.example.com/a/{{ payload.accountId }}" } },
    {
      id: "route",
      type: "branch",
      paths: [
        {
          id: "big",
          name: "Big invoice",
          if: { field: "payload.total", op: "gt", value: 1000 },
          steps: [{ id: "text", type: "sms", template: { body: "Invoice {{ payload.total }}" } }],
        },
        {
          id: "pro",
          if: { field: "steps.account.response.body.plan", op: "eq", value: "pro" },
          steps: [{ id: "chat", type: "chat", template: { text: "Pro" } }],
        },
      ],
      default: { steps: [{ id: "mail", type: "email", template: { subject: "Invoice {{ payload.total }}", text: "See it." } }] },
    },
    { id: "after", type: "in_app", if: { field: "steps.route.path", op: "eq", value: "default" }, template: { body: "Done" } },
  ];
  const marks = (body: PreviewBody) => body.steps.map((s) => [s.id, s.onPath, s.wouldRun, s.path]);

  async function previewTree(body: Record<string, unknown>) {
    const { key } = await createEnvironment();
    const draft = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", { workflow: { steps: tree }, ...body });
    expect(draft.status).toBe(200);
    const workflow = await createWorkflow(key, { steps: tree });
    const saved = await api<PreviewBody>(key, "POST", `/v1/workflows/${workflow.key}/preview`, body);
    expect(saved.status).toBe(200);
    // A saved workflow and its draft preview alike.
    expect(saved.body.steps).toEqual(draft.body.steps);
    return draft.body;
  }

  it("marks the first path whose condition holds, and the steps off it", async () => {
    const body = await previewTree({ payload: { total: 1500, accountId: "a1" } });
    expect(marks(body)).toEqual([
      ["account", true, true, undefined],
      ["route", true, true, "big"],
      ["text", true, true, undefined],
      ["chat", false, false, undefined],
      ["mail", false, false, undefined],
      ["after", true, false, undefined],
    ]);
    expect(body.steps[2]).toMatchObject({ content: { body: "Invoice 1500" } });
    // Steps off the path still render, so their templates can be edited whatever the sample.
    expect(body.steps[4]).toMatchObject({ content: { subject: "Invoice 1500" }, assumedStatus: "skipped" });
  });

  it("reads a fetch step's sample response in a later path's condition, and never calls its URL", async () => {
    const body = await previewTree({
      payload: { total: 10, accountId: "a1" },
      responses: { account: { status: 200, body: { plan: "pro" } } },
    });
    expect(marks(body).map(([id, onPath]) => [id, onPath])).toEqual([
      ["account", true],
      ["route", true],
      ["text", false],
      ["chat", true],
      ["mail", false],
      ["after", true],
    ]);
    expect(body.steps[1]?.path).toBe("pro");
    expect(body.steps[0]).toMatchObject({
      response: { status: 200, headers: {}, body: { plan: "pro" } },
      content: { method: "GET", url: "https://crm.example.com/a/a1" },
    });
  });

  it("takes the default when no path holds, and later steps read it as steps.<branch>.path", async () => {
    const body = await previewTree({ payload: { total: 10, accountId: "a1" } });
    expect(body.steps[1]?.path).toBe("default");
    expect(
      marks(body)
        .filter(([, onPath]) => onPath)
        .map(([id]) => id),
    ).toEqual(["account", "route", "mail", "after"]);
    expect(body.steps[5]).toMatchObject({ wouldRun: true, condition: { leaves: [{ actual: "default" }] } });
  });

  it("takes no path when the branch's own condition is false", async () => {
    const { key } = await createEnvironment();
    const gated = [{ ...tree[1], if: { field: "payload.go", op: "eq", value: true } }];
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", { workflow: { steps: gated }, payload: { total: 1500 } });
    expect(marks(res.body)).toEqual([
      ["route", true, false, null],
      ["text", false, false, undefined],
      ["chat", false, false, undefined],
      ["mail", false, false, undefined],
    ]);
  });

  it("shows a half-written step inside a path on its own card; its siblings still render", async () => {
    const { key } = await createEnvironment();
    const draft = structuredClone(tree.slice(1, 2)) as { paths: { steps: Record<string, unknown>[] }[] }[];
    draft[0]!.paths[0]!.steps.unshift({ id: "broken", type: "email", template: { subject: "" } });
    const res = await api<PreviewBody>(key, "POST", "/v1/workflows/preview", { workflow: { steps: draft }, payload: { total: 1500 } });
    expect(res.status).toBe(200);
    expect(res.body.steps.map((s) => [s.id, s.error?.code])).toEqual([
      ["route", undefined],
      ["broken", "invalid_step"],
      ["text", undefined],
      ["chat", undefined],
      ["mail", undefined],
    ]);
    expect(res.body.steps[2]).toMatchObject({ onPath: true, content: { body: "Invoice 1500" } });
  });

  it("refuses a sample response that is not one", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/workflows/preview", { workflow: { steps: tree }, responses: { account: { status: 1000 } } });
    expectProblem(res, 422, "validation_failed");
  });
});
