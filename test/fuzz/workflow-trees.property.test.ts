// Property-based workflow trees against POST /v1/workflows and PUT /v1/workflows/{key}: nested
// branches (too many paths, too deep, a default or none), every step type with right and wrong
// shapes, ids drawn from a small pool so they collide, huge strings and very deep trees. Whatever
// comes in, the answer is a 2xx or a problem document, never a 5xx.
import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, createWorkflow } from "../factories";
import { errorPaths } from "../request";

type Json = Record<string, unknown>;

/** Few ids, so the same one often lands twice in a tree. */
const id = fc.constantFrom("a", "b", "c", "mail", "route", "wait", "x".repeat(64), "x".repeat(65), "bad id", "");
const condition = fc.oneof(
  fc.constant({ field: "payload.vip", op: "eq", value: true }),
  fc.constant({
    any: [
      { field: "steps.route.path", op: "eq", value: "vip" },
      { field: "steps.wait.outcome", op: "eq", value: "timed_out" },
    ],
  }),
  fc.constant({ field: "steps.fetch.response.body.plan", op: "in", value: ["pro"] }),
  fc.constant({ field: "tenant.data.tier", op: "exists" }),
  fc.jsonValue({ maxDepth: 3 }),
);
const liquid = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom("Hi {{ payload.name }}", "{% if x %}", "{{ 'k' | t }}", '{% render "ghost" %}', "", "\u0000") },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 120_000 }).map((n) => "x".repeat(n)) },
);
const duration = fc.constantFrom("PT1H", "P1D", "P31D", "P30D", "PT0S", "soon", "-P1D", "");

/** A leaf step of any type, often well formed, sometimes with a field of the wrong shape. */
const leaf = fc.oneof(
  fc.record({
    id,
    type: fc.constant("email"),
    template: fc.record({ subject: liquid, text: liquid }),
    layout: fc.constantFrom(null, "ghost"),
  }),
  fc.record({ id, type: fc.constant("in_app"), template: fc.record({ body: liquid }) }),
  fc.record({ id, type: fc.constant("sms"), template: fc.record({ body: liquid }), if: condition }),
  fc.record({ id, type: fc.constant("delay"), for: duration }),
  fc.record({
    id,
    type: fc.constant("http"),
    request: fc.record({
      method: fc.constantFrom("GET", "POST", "TRACE", 1),
      url: fc.constantFrom("https://example.com/{{ payload.id }}", "http://127.0.0.1/", "file:///etc/passwd", "{{", ""),
      headers: fc.dictionary(fc.constantFrom("x-key", "bad header", ""), liquid, { maxKeys: 2 }),
      body: fc.oneof(liquid, fc.jsonValue({ maxDepth: 3 })),
    }),
    timeoutMs: fc.constantFrom(10, 100, 10_000, 15_000, 15_001, -1, 1.5),
    onError: fc.constantFrom("halt", "continue", "explode"),
  }),
  fc.record({
    id,
    type: fc.constant("wait"),
    until: fc.oneof(
      fc.record({ message: fc.record({ step: id, status: fc.constantFrom("seen", "opened", "bounced") }) }),
      fc.record({ signal: fc.constantFrom("paid", "bad name!", ""), if: condition }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    timeout: duration,
  }),
  fc.record({
    id,
    type: fc.constant("trigger_workflow"),
    workflow: fc.constantFrom("fuzz-tree", "other", "Bad Key", ""),
    payload: fc.oneof(
      fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(liquid, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 3 }),
      fc.jsonValue(),
    ),
  }),
  fc.record({
    id,
    type: fc.constant("update_subscriber"),
    set: fc.oneof(
      fc.record({ data: fc.jsonValue({ maxDepth: 3 }), locale: liquid }, { requiredKeys: [] }),
      fc.constant({ email: "a@example.com" }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  }),
  fc.record({ id, type: fc.constantFrom("branch", "teleport", 7) }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Trees of branches: up to 12 paths, nested up to 8 deep (the limits are 10 and 5). */
const { tree } = fc.letrec<{ tree: unknown[]; step: unknown }>((self) => ({
  tree: fc.array(self("step"), { minLength: 0, maxLength: 4 }),
  step: fc.oneof(
    { depthSize: "small", withCrossShrink: true, maxDepth: 8 },
    leaf,
    fc.record(
      {
        id,
        type: fc.constant("branch"),
        if: condition,
        paths: fc.array(
          fc.record(
            { id, name: fc.string({ maxLength: 300 }), if: condition, steps: self("tree") },
            { requiredKeys: ["id", "if", "steps"] },
          ),
          {
            minLength: 0,
            maxLength: 12,
          },
        ),
        default: fc.oneof(fc.record({ steps: self("tree") }), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: ["id", "type", "paths"] },
    ),
  ),
}));

/** A branch `depth` deep, each path holding the next, an email at the bottom. */
const nested = (depth: number): Json =>
  depth === 0
    ? { id: "bottom", type: "email", layout: null, template: { subject: "Hi", text: "Hi" } }
    : {
        id: `b${depth}`,
        type: "branch",
        paths: [{ id: `p${depth}`, if: { field: "payload.a", op: "exists" }, steps: [nested(depth - 1)] }],
      };

/** Bodies as text: a tree in a workflow, sometimes with a very long list or a tree too deep for JSON.stringify's callers. */
const body = (key: string) =>
  fc.oneof(
    { weight: 8, arbitrary: tree.map((steps) => JSON.stringify({ key, name: "Fuzz", steps })) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 6, max: 400 }).map((depth) => JSON.stringify({ key, name: "Fuzz", steps: [nested(depth)] })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 101, max: 3_000 })
        .map((n) => JSON.stringify({ key, name: "Fuzz", steps: Array.from({ length: n }, (_, i) => ({ ...nested(0), id: `s${i}` })) })),
    },
  );

let apiKey: string;
beforeAll(async () => {
  ({ key: apiKey } = await createEnvironment());
  await createWorkflow(apiKey, { key: "fuzz-tree" });
});

async function send(method: string, path: string, text: string) {
  const res = await SELF.fetch(`http://clarion.test${path}`, {
    method,
    headers: { authorization: `ApiKey ${apiKey}`, "content-type": "application/json" },
    body: text,
  });
  const answer = await res.text();
  const where = `${method} ${path} ${text.slice(0, 300)} → ${res.status} ${answer.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("content-type"), where).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer), where).toMatchObject({ status: res.status, code: expect.any(String) });
  }
  return res.status;
}

describe("workflow trees under bad input", () => {
  it("POST /v1/workflows never answers 5xx", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(body("placeholder"), async (text) => {
        // A fresh key each run, so a body that saves does not turn the next into a 409.
        await send("POST", "/v1/workflows", text.replace('"placeholder"', JSON.stringify(`fuzz-post-${n++}`)));
      }),
      { numRuns: 100 },
    );
  });

  it("PUT /v1/workflows/{key} never answers 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(body("fuzz-tree"), async (text) => {
        await send("PUT", "/v1/workflows/fuzz-tree", text);
      }),
      { numRuns: 100 },
    );
  });

  it.each(["POST", "PUT"])("%s answers a 6-deep tree with 422 workflow_too_deep and the path of the branch too deep", async (method) => {
    const key = method === "POST" ? "fuzz-deep" : "fuzz-tree";
    const res = await SELF.fetch(`http://clarion.test/v1/workflows${method === "PUT" ? `/${key}` : ""}`, {
      method,
      headers: { authorization: `ApiKey ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ key, name: "Deep", steps: [nested(6)] }),
    });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { code: string };
    expect(problem.code).toBe("workflow_too_deep");
    expect(errorPaths(problem)).toContain("steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0");
  });
});
