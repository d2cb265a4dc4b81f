import { describe, expect, it } from "vitest";
import type { WorkflowList } from "../../src/features/workflows/schemas";
import { createEnvironment, createWorkflow, workflowBody } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";

const inEnvironment = (slug: string) => ({ headers: { "clarion-environment": slug } });

describe("the admin credential with Clarion-Environment", () => {
  it("acts in the environment it names: what it writes is that environment's", async () => {
    const { key, slug } = await createEnvironment();
    const made = await api<{ key: string }>(ADMIN_KEY, "POST", "/v1/workflows", workflowBody(), inEnvironment(slug));
    expect(made.status).toBe(201);
    const seen = await api<WorkflowList>(key, "GET", "/v1/workflows");
    expect(seen.body.data.map((w) => w.key)).toContain(made.body.key);
  });

  it("sees one environment's data and not another's", async () => {
    const a = await createEnvironment();
    const b = await createEnvironment();
    const workflow = await createWorkflow(a.key);
    expect((await api(ADMIN_KEY, "GET", `/v1/workflows/${workflow.key}`, undefined, inEnvironment(a.slug))).status).toBe(200);
    expectProblem(
      await api(ADMIN_KEY, "GET", `/v1/workflows/${workflow.key}`, undefined, inEnvironment(b.slug)),
      404,
      "workflow_not_found",
    );
  });

  it("is counted against the environment's rate limit, like a key", async () => {
    const { slug } = await createEnvironment();
    const res = await api(ADMIN_KEY, "GET", "/v1/workflows", undefined, inEnvironment(slug));
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toContain('"environment"');
  });

  it("answers 404 environment_not_found for an environment that does not exist", async () => {
    const problem = expectProblem(
      await api(ADMIN_KEY, "GET", "/v1/workflows", undefined, inEnvironment("no-such-env")),
      404,
      "environment_not_found",
    );
    expect(problem.detail).toContain("no-such-env");
  });

  it("still answers 403 without the header, saying how to name one", async () => {
    const problem = expectProblem(await api(ADMIN_KEY, "GET", "/v1/workflows"), 403, "forbidden");
    expect(problem.detail).toContain("Clarion-Environment");
  });

  it("refuses a wrong admin credential with 401 even when it names an environment", async () => {
    const { slug } = await createEnvironment();
    expectProblem(await api(`${ADMIN_KEY.slice(0, -1)}X`, "GET", "/v1/workflows", undefined, inEnvironment(slug)), 401, "unauthorized");
  });
});

describe("an environment key with Clarion-Environment", () => {
  it("may name its own environment", async () => {
    const { key, slug } = await createEnvironment();
    expect((await api(key, "GET", "/v1/workflows", undefined, inEnvironment(slug))).status).toBe(200);
  });

  it("cannot reach another environment by naming it", async () => {
    const { key } = await createEnvironment();
    const other = await createEnvironment();
    const problem = expectProblem(await api(key, "GET", "/v1/workflows", undefined, inEnvironment(other.slug)), 403, "forbidden");
    expect(problem.detail).toContain(other.slug);
  });
});
