import { beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/features/workflows/schemas";
import { createEnvironment, unique } from "../factories";
import { api, errorPaths } from "../request";

let environment: { id: string; key: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const save = (steps: unknown[], key = unique("tree").toLowerCase()) =>
  api<Workflow & { code?: string; errors?: { path: string }[] }>(environment.key, "POST", "/v1/workflows", { key, name: "Tree", steps });

const email = (id: string) => ({ id, type: "email", template: { subject: "S", text: "Hello" } });
const cond = { field: "payload.total", op: "gt", value: 1000 };

/** A branch nested `depth` deep, each holding the next in its first path. */
function nested(depth: number, n = 1): Record<string, unknown> {
  const inner = depth > 1 ? [nested(depth - 1, n + 1)] : [email(`leaf-${n}`)];
  return { id: `b${n}`, type: "branch", paths: [{ id: `p${n}`, if: cond, steps: inner }] };
}

describe("workflow trees", () => {
  it("stores a branch with paths and a default, and every new step type, unchanged", async () => {
    const steps = [
      email("first"),
      {
        id: "route",
        type: "branch",
        paths: [
          {
            id: "big",
            name: "Big invoice",
            if: cond,
            steps: [{ id: "text", type: "sms", template: { body: "Big: {{ payload.total }}" } }],
          },
          { id: "vip", if: { field: "tenant.data.plan", op: "eq", value: "vip" }, steps: [] },
        ],
        default: { steps: [{ id: "later", type: "delay", for: "PT1H" }] },
      },
      {
        id: "lookup",
        type: "http",
        request: {
          method: "POST",
          url: "https://api.example.com/x/{{ subscriber.subscriberId }}",
          headers: { authorization: "Bearer {{ vars.token }}" },
          body: { id: "{{ payload.id }}" },
        },
        timeoutMs: 5000,
        onError: "continue",
      },
      { id: "seen", type: "wait", until: { message: { step: "first", status: "opened" } }, timeout: "PT1H" },
      { id: "paid", type: "wait", until: { signal: "invoice.paid", if: { field: "payload.amount", op: "gt", value: 1 } }, timeout: "P1D" },
      { id: "next", type: "trigger_workflow", workflow: "other-flow", payload: { from: "{{ workflow.key }}" } },
      { id: "mark", type: "update_subscriber", set: { data: { escalated: true }, locale: "de" } },
      {
        ...email("after"),
        if: {
          any: [
            { field: "steps.seen.outcome", op: "eq", value: "timed_out" },
            { field: "steps.lookup.response.body.vip", op: "eq", value: true },
          ],
        },
      },
    ];
    const res = await save(steps);
    expect(res.status).toBe(201);
    expect(res.body.steps).toEqual(steps);
  });

  it("answers 422 workflow_too_deep with the branch's path for a 6-deep tree, and takes 5", async () => {
    expect((await save([nested(5)])).status).toBe(201);
    const res = await save([nested(6)]);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("workflow_too_deep");
    expect(errorPaths(res.body)).toContain("steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0.paths.0.steps.0");
  });

  it("answers 422 too_many_paths for eleven paths", async () => {
    const paths = Array.from({ length: 11 }, (_, i) => ({ id: `p${i}`, if: cond, steps: [] }));
    const res = await save([{ id: "b", type: "branch", paths }]);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("too_many_paths");
    expect(errorPaths(res.body)).toContain("steps.0.paths");
  });

  it("refuses a step id used twice anywhere in the tree", async () => {
    const res = await save([email("x"), { id: "b", type: "branch", paths: [{ id: "p", if: cond, steps: [email("x")] }] }]);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(errorPaths(res.body)).toContain("steps.1.paths.0.steps.0.id");
  });

  it("refuses a workflow that triggers itself, and a wait on a step that does not come before it", async () => {
    const key = unique("self").toLowerCase();
    const self = await save([{ id: "again", type: "trigger_workflow", workflow: key }], key);
    expect(self.status).toBe(422);
    expect(self.body.code).toBe("workflow_triggers_itself");
    const early = await save([
      { id: "w", type: "wait", until: { message: { step: "mail", status: "seen" } }, timeout: "PT1H" },
      email("mail"),
    ]);
    expect(early.status).toBe(422);
    expect(errorPaths(early.body)).toEqual(["steps.0.until.message.step"]);
    const sibling = await save([
      {
        id: "b",
        type: "branch",
        paths: [{ id: "p", if: cond, steps: [email("mail")] }],
        default: { steps: [{ id: "w", type: "wait", until: { message: { step: "mail", status: "seen" } }, timeout: "PT1H" }] },
      },
    ]);
    expect(sibling.status).toBe(422);
    expect(errorPaths(sibling.body)).toContain("steps.0.default.steps.0.until.message.step");
  });

  it("checks Liquid, email bodies and conditions inside paths", async () => {
    const res = await save([
      {
        id: "b",
        type: "branch",
        paths: [{ id: "p", if: cond, steps: [{ id: "m", type: "email", template: { subject: "{{ oops" } }] }],
        default: { steps: [{ id: "h", type: "http", request: { method: "GET", url: "https://x/{% if %}" } }] },
      },
    ]);
    expect(res.status).toBe(422);
    expect(errorPaths(res.body)).toEqual(
      expect.arrayContaining([
        "steps.0.paths.0.steps.0.template.subject",
        "steps.0.paths.0.steps.0.template.html",
        "steps.0.default.steps.0.request.url",
      ]),
    );
  });
});
