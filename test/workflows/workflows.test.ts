import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { workflowsRepository } from "../../src/features/workflows/repository";
import type { Workflow } from "../../src/features/workflows/schemas";
import { createEnvironment, createWorkflow, unique, workflowBody } from "../factories";
import { postHeld } from "../held-triggers";
import { api, errorPaths, expectProblem } from "../request";
import { LogStore } from "../../src/durable-objects/client/log-store";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let environment: { id: string; key: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const call = <T = Workflow>(method: string, path: string, body?: unknown) => api<T>(environment.key, method, path, body);
const create = (overrides: Record<string, unknown> = {}) => call("POST", "/v1/workflows", workflowBody(overrides));

const email = { id: "welcome-email", type: "email", template: { subject: "Hi {{ subscriber.firstName }}", html: "<p>Hi</p>" } };

describe("POST /v1/workflows", () => {
  it("creates a workflow and answers 201 with it, defaults filled in", async () => {
    const key = unique("wf").toLowerCase();
    const res = await call("POST", "/v1/workflows", { key, name: "Welcome", steps: [email] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^wf_[0-9a-f]{32}$/),
      key,
      name: "Welcome",
      description: null,
      active: true,
      critical: false,
      unsubscribe: "workflow",
      tags: [],
      payloadSchema: null,
      steps: [email],
      version: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
  });

  it("stores every step type", async () => {
    const steps = [
      { id: "wait", type: "delay", for: "PT15M" },
      { id: "wait-until", type: "delay", until: { localTime: "09:00", days: ["mon", "tue"] } },
      { id: "bundle", type: "digest", window: "PT1H", mode: "fixed" },
      { id: "limit", type: "throttle", window: "P1D", limit: 3 },
      { id: "mail", type: "email", template: { subject: "S", text: "Hello" }, if: { field: "payload.total", op: "gt", value: 10 } },
      { id: "text", type: "sms", template: { body: "B" } },
      { id: "notify", type: "push", template: { title: "T", body: "B" } },
      { id: "post", type: "chat", template: { text: "T" }, if: { all: [{ field: "steps.mail.status", op: "ne", value: "sent" }] } },
    ];
    const res = await create({ steps });
    expect(res.status).toBe(201);
    expect(res.body.steps).toHaveLength(8);
    expect(res.body.steps.map((s) => s.type)).toEqual(["delay", "delay", "digest", "throttle", "email", "sms", "push", "chat"]);
  });

  it("rejects a duplicate key with 409 workflow_exists", async () => {
    const key = unique("wf").toLowerCase();
    expect((await create({ key })).status).toBe(201);
    expectProblem(await create({ key, name: "Another" }), 409, "workflow_exists");
    expect((await call("GET", `/v1/workflows/${key}`)).body.name).toBe("Order shipped");
  });

  it("answers at /v1/workflows/ as well", async () => {
    const res = await call("POST", "/v1/workflows/", workflowBody());
    expect(res.status).toBe(201);
  });

  describe("validation", () => {
    it.each([
      ["an unknown step type", [{ id: "s1", type: "carrier-pigeon", template: {} }], "steps.0.type"],
      [
        "duplicate step ids",
        [
          { id: "same", type: "sms", template: { body: "a" } },
          { id: "same", type: "sms", template: { body: "b" } },
        ],
        "steps.1.id",
      ],
      [
        "a bad condition op",
        [{ id: "s1", type: "sms", template: { body: "a" }, if: { field: "payload.x", op: "approximately", value: 1 } }],
        "steps.0.if",
      ],
      [
        "a bad condition field",
        [{ id: "s1", type: "sms", template: { body: "a" }, if: { field: "nowhere.x", op: "eq", value: 1 } }],
        "steps.0.if",
      ],
      ["a delay with both for and until", [{ id: "d1", type: "delay", for: "PT1H", until: "{{ payload.at }}" }], "steps.0"],
      ["a delay with neither for nor until", [{ id: "d1", type: "delay" }], "steps.0"],
      ["a delay with a bad duration", [{ id: "d1", type: "delay", for: "15 minutes" }], "steps.0.for"],
      ["an email step without a subject", [{ id: "e1", type: "email", template: { html: "<p/>" } }], "steps.0.template.subject"],
      ["a step id with spaces", [{ id: "has space", type: "sms", template: { body: "a" } }], "steps.0.id"],
      ["a throttle with limit 0", [{ id: "t1", type: "throttle", window: "PT1H", limit: 0 }], "steps.0.limit"],
    ])("rejects %s with 422 and its path", async (_label, steps, path) => {
      const problem = expectProblem(await create({ steps }), 422, "validation_failed");
      expect(errorPaths(problem).some((p) => p === path || p.startsWith(`${path}.`))).toBe(true);
    });

    const sms = { id: "text", type: "sms", template: { body: "a" } };
    it.each([
      ["an email without html or text", [sms, { id: "mail", type: "email", template: { subject: "S" } }], "steps.1.template.html"],
      ["an email whose html is blank", [{ id: "mail", type: "email", template: { subject: "S", html: "  " } }], "steps.0.template.html"],
      [
        "a locale variant that blanks the only body",
        [{ id: "mail", type: "email", template: { subject: "S", text: "T" }, locales: { de: { subject: "D", text: "" } } }],
        "steps.0.locales.de.html",
      ],
    ])("refuses %s with 422 at its path, on create and on update", async (_label, steps, path) => {
      expect(errorPaths(expectProblem(await create({ steps }), 422, "validation_failed"))).toContain(path);
      const existing = await create();
      const update = await call("PUT", `/v1/workflows/${existing.body.key}`, workflowBody({ key: existing.body.key, steps }));
      expect(errorPaths(expectProblem(update, 422, "validation_failed"))).toContain(path);
    });

    const mail = (template: Record<string, unknown>, locales?: Record<string, unknown>) => ({
      id: "mail",
      type: "email",
      template: { subject: "S", text: "T", ...template },
      ...(locales ? { locales } : {}),
    });
    it.each([
      [
        "an unknown filter in a subject",
        [mail({ subject: "Hi {{ subscriber.firstName | shout }}" })],
        "steps.0.template.subject",
        "undefined filter: shout",
      ],
      ["an unclosed tag in an html body", [mail({ html: "{% if payload.vip %}<b>VIP</b>" })], "steps.0.template.html", "not closed"],
      [
        "an unclosed output in a German subject",
        [mail({}, { de: { subject: "Hallo {{ subscriber.firstName" } })],
        "steps.0.locales.de.subject",
        "not closed",
      ],
      [
        "a broken sms body",
        [{ id: "text", type: "sms", template: { body: "{% for x in payload.items %}" } }],
        "steps.0.template.body",
        "not closed",
      ],
      [
        "a broken string deep in push data",
        [{ id: "push", type: "push", template: { title: "t", body: "b", data: { links: [{ url: "{{ payload.url | nope }}" }] } } }],
        "steps.0.template.data.links.0.url",
        "undefined filter: nope",
      ],
      [
        "a broken chat text in a locale",
        [{ id: "chat", type: "chat", template: { text: "ok" }, locales: { fr: { text: "{{ x" } } }],
        "steps.0.locales.fr.text",
        "not closed",
      ],
      [
        "a broken delay until",
        [{ id: "wait", type: "delay", until: "{{ payload.at | later }}" }],
        "steps.0.until",
        "undefined filter: later",
      ],
      ["a broken digest key", [{ id: "d", type: "digest", window: "PT1H", key: "{% if %}" }], "steps.0.key", "Liquid"],
    ])("refuses %s with 422, its path and the parser's message, on create and on update", async (_label, steps, path, message) => {
      const created = expectProblem(await create({ steps }), 422, "validation_failed");
      expect(created.errors).toContainEqual({ path, message: expect.stringContaining(message) });
      const existing = await create();
      const update = await call("PUT", `/v1/workflows/${existing.body.key}`, workflowBody({ key: existing.body.key, steps }));
      expect(expectProblem(update, 422, "validation_failed").errors).toContainEqual({ path, message: expect.stringContaining(message) });
      expect((await call("GET", `/v1/workflows/${existing.body.key}`)).body).toEqual(existing.body);
    });

    it("saves templates that parse, in every locale and channel", async () => {
      const steps = [
        mail(
          { subject: "Hi {{ subscriber.firstName | default: 'there' }}", html: "{% if payload.vip %}<b>VIP</b>{% endif %}" },
          { de: { subject: "Hallo {{ subscriber.firstName }}" } },
        ),
        { id: "text", type: "sms", template: { body: "{% for x in payload.items %}{{ x }}{% endfor %}" } },
      ];
      expect((await create({ steps })).status).toBe(201);
    });

    it("accepts a locale variant that gives only a subject", async () => {
      const steps = [{ id: "mail", type: "email", template: { subject: "S", html: "<p>H</p>" }, locales: { de: { subject: "D" } } }];
      const res = await create({ steps });
      expect(res.status).toBe(201);
      expect(res.body.steps).toEqual(steps);
    });

    it.each([
      ["an uppercase key", { key: "Order-Shipped" }, "key"],
      ["a key with spaces", { key: "order shipped" }, "key"],
      ["an empty name", { name: "" }, "name"],
      ["missing steps", { steps: undefined }, "steps"],
      ["a non-boolean active", { active: "yes" }, "active"],
      ["an unknown field", { colour: "blue" }, ""],
    ])("rejects %s with 422", async (_label, overrides, path) => {
      const problem = expectProblem(await create(overrides), 422, "validation_failed");
      if (path) expect(errorPaths(problem)).toContain(path);
    });
  });
});

describe("GET /v1/workflows/{key}", () => {
  it("answers the workflow", async () => {
    const created = await create({ description: "Tells a customer", tags: ["orders"] });
    const res = await call("GET", `/v1/workflows/${created.body.key}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
  });

  it("answers an unknown key with 404 workflow_not_found", async () => {
    expectProblem(await call("GET", "/v1/workflows/no-such-workflow"), 404, "workflow_not_found");
  });
});

describe("GET /v1/workflows", () => {
  it("pages through every workflow by key with a cursor", async () => {
    const own = await createEnvironment();
    const keys = ["a-wf", "b-wf", "c-wf", "d-wf", "e-wf"];
    for (const key of [...keys].reverse()) {
      expect((await api(own.key, "POST", "/v1/workflows", workflowBody({ key }))).status).toBe(201);
    }
    type Page = { data: Workflow[]; nextCursor: string | null };
    const first = await api<Page>(own.key, "GET", "/v1/workflows?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data.map((w) => w.key)).toEqual(["a-wf", "b-wf"]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await api<Page>(own.key, "GET", `/v1/workflows?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(second.body.data.map((w) => w.key)).toEqual(["c-wf", "d-wf"]);
    const third = await api<Page>(own.key, "GET", `/v1/workflows?limit=2&cursor=${encodeURIComponent(second.body.nextCursor!)}`);
    expect(third.body.data.map((w) => w.key)).toEqual(["e-wf"]);
    expect(third.body.nextCursor).toBeNull();
  });

  it("answers an exactly full last page without a cursor", async () => {
    const own = await createEnvironment();
    for (const key of ["x-1", "x-2"]) await api(own.key, "POST", "/v1/workflows", workflowBody({ key }));
    const res = await api<{ data: Workflow[]; nextCursor: string | null }>(own.key, "GET", "/v1/workflows?limit=2");
    expect(res.body.data).toHaveLength(2);
    expect(res.body.nextCursor).toBeNull();
  });

  it("answers an empty environment with an empty page", async () => {
    const own = await createEnvironment();
    const res = await api(own.key, "GET", "/v1/workflows");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], nextCursor: null });
  });

  it("filters by key or name (case-insensitive, % and _ taken literally) and by active", async () => {
    const own = await createEnvironment();
    await api(own.key, "POST", "/v1/workflows", workflowBody({ key: "order-shipped", name: "Order shipped" }));
    await api(own.key, "POST", "/v1/workflows", workflowBody({ key: "password-reset", name: "Reset 50% faster", active: false }));
    await api(own.key, "POST", "/v1/workflows", workflowBody({ key: "welcome", name: "Welcome aboard" }));
    type Page = { data: Workflow[]; nextCursor: string | null };
    const keys = async (query: string) => (await api<Page>(own.key, "GET", `/v1/workflows?${query}`)).body.data.map((w) => w.key);
    expect(await keys("q=ORDER")).toEqual(["order-shipped"]);
    expect(await keys("q=aboard")).toEqual(["welcome"]);
    expect(await keys(`q=${encodeURIComponent("50%")}`)).toEqual(["password-reset"]);
    expect(await keys("q=_")).toEqual([]);
    expect(await keys("active=false")).toEqual(["password-reset"]);
    expect(await keys("active=true")).toEqual(["order-shipped", "welcome"]);
    expect(await keys("active=true&q=e&limit=1")).toEqual(["order-shipped"]);
  });

  it("says when each workflow was last triggered, null when never", async () => {
    const own = await createEnvironment();
    const used = await createWorkflow(own.key, { key: "used" });
    await createWorkflow(own.key, { key: "unused" });
    // Another environment's trigger of the same key is not this one's.
    const other = await createEnvironment();
    await createWorkflow(other.key, { key: "unused" });
    // Through the accept path, which writes the workflow's row; nothing is delivered, so the log holds no record of it.
    const triggered = async (key: string, workflow: string) =>
      expect((await postHeld(key, "/v1/trigger", { workflow, to: "s-1" })).res.status).toBe(202);
    await triggered(other.key, "unused");
    const before = Date.now();
    await triggered(own.key, used.key);
    type Page = { data: (Workflow & { lastTriggeredAt: string | null })[] };
    const listed = (await api<Page>(own.key, "GET", "/v1/workflows")).body.data;
    const at = Date.parse(listed.find((w) => w.key === "used")!.lastTriggeredAt!);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(listed.find((w) => w.key === "unused")!.lastTriggeredAt).toBeNull();
  });

  it("reads lastTriggeredAt with an index seek per workflow, not a scan of the triggers", async () => {
    const query = workflowsRepository(createDb(env.DB), "env_plan", new LogStore(env))
      .listQuery(50, undefined, { q: "order", active: true })
      .toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail);
    expect(
      details.some((d) => /^SEARCH t USING COVERING INDEX triggers_env_workflow_idx \(environment_id=\? AND workflow_key=\?\)/.test(d)),
    ).toBe(true);
    expect(details.some((d) => /^SCAN (t|triggers)\b/.test(d))).toBe(false);
  });

  it.each(["active=yes", "q="])("rejects %s with 422", async (query) => {
    const problem = expectProblem(await call("GET", `/v1/workflows?${query}`), 422, "validation_failed");
    expect(errorPaths(problem)).toContain(query.split("=")[0]);
  });

  it.each(["0", "101", "ten"])("rejects limit=%s with 422", async (limit) => {
    const problem = expectProblem(await call("GET", `/v1/workflows?limit=${limit}`), 422, "validation_failed");
    expect(errorPaths(problem)).toContain("limit");
  });
});

describe("PUT /v1/workflows/{key}", () => {
  it("replaces the workflow", async () => {
    const created = await create({ tags: ["a"], description: "old" });
    const key = created.body.key;
    const res = await call("PUT", `/v1/workflows/${key}`, { key, name: "Renamed", active: false, steps: [email] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      key,
      name: "Renamed",
      active: false,
      tags: [],
      description: null,
      steps: [email],
    });
    expect(res.body.createdAt).toBe(created.body.createdAt);
    expect((await call("GET", `/v1/workflows/${key}`)).body.name).toBe("Renamed");
  });

  it("refuses a new key with 422 workflow_key_immutable and keeps the workflow under its key", async () => {
    const created = await create();
    const newKey = unique("renamed").toLowerCase();
    const problem = expectProblem(
      await call("PUT", `/v1/workflows/${created.body.key}`, workflowBody({ key: newKey })),
      422,
      "workflow_key_immutable",
    );
    expect(errorPaths(problem)).toEqual(["key"]);
    expect(problem.detail).toContain("POST /v1/workflows");
    expect((await call("GET", `/v1/workflows/${created.body.key}`)).body).toEqual(created.body);
    expectProblem(await call("GET", `/v1/workflows/${newKey}`), 404, "workflow_not_found");
  });

  it("refuses the key of another workflow the same way, leaving both as they were", async () => {
    const a = await create();
    const b = await create();
    expectProblem(await call("PUT", `/v1/workflows/${a.body.key}`, workflowBody({ key: b.body.key })), 422, "workflow_key_immutable");
    expect((await call("GET", `/v1/workflows/${a.body.key}`)).body).toEqual(a.body);
    expect((await call("GET", `/v1/workflows/${b.body.key}`)).body).toEqual(b.body);
  });

  it("answers an unknown key with 404 workflow_not_found", async () => {
    expectProblem(
      await call("PUT", "/v1/workflows/no-such-workflow", workflowBody({ key: "no-such-workflow" })),
      404,
      "workflow_not_found",
    );
  });

  it("rejects invalid steps with 422", async () => {
    const created = await create();
    const res = await call(
      "PUT",
      `/v1/workflows/${created.body.key}`,
      workflowBody({ key: created.body.key, steps: [{ id: "x", type: "fax" }] }),
    );
    expectProblem(res, 422, "validation_failed");
  });
});

describe("DELETE /v1/workflows/{key}", () => {
  it("answers 204 and the workflow is gone", async () => {
    const created = await create();
    const res = await call<null>("DELETE", `/v1/workflows/${created.body.key}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectProblem(await call("GET", `/v1/workflows/${created.body.key}`), 404, "workflow_not_found");
  });

  it("answers 404 workflow_not_found the second time", async () => {
    const created = await create();
    expect((await call("DELETE", `/v1/workflows/${created.body.key}`)).status).toBe(204);
    expectProblem(await call("DELETE", `/v1/workflows/${created.body.key}`), 404, "workflow_not_found");
  });

  it("stops the workflow from being triggered", async () => {
    const created = await create();
    await call("DELETE", `/v1/workflows/${created.body.key}`);
    expectProblem(await call("POST", "/v1/trigger/", { workflow: created.body.key, to: "user-1" }), 404, "workflow_not_found");
  });

  it("frees the key for a new workflow", async () => {
    const created = await create();
    await call("DELETE", `/v1/workflows/${created.body.key}`);
    const again = await create({ key: created.body.key, name: "Again" });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.body.id);
    expect((await call("GET", `/v1/workflows/${created.body.key}`)).body.name).toBe("Again");
  });
});
