import { describe, expect, it } from "vitest";
import { createEnvironment } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";

describe("admin credential", () => {
  it("lists environments with the admin credential", async () => {
    expect((await api(ADMIN_KEY, "GET", "/v1/admin/environments")).status).toBe(200);
  });

  it("refuses an admin route without a credential with 401", async () => {
    const problem = expectProblem(await api(null, "GET", "/v1/admin/environments"), 401, "unauthorized");
    expect(problem.detail).toMatch(/admin/);
  });

  it("refuses an environment key on an admin route with 403", async () => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "GET", "/v1/admin/environments"), 403, "forbidden");
  });

  it("refuses an environment key on an unknown admin path with 403, not 404", async () => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "GET", "/v1/admin/nothing-here"), 403, "forbidden");
  });

  it("refuses a wrong admin credential with 401", async () => {
    expectProblem(await api(`${ADMIN_KEY.slice(0, -1)}X`, "GET", "/v1/admin/environments"), 401, "unauthorized");
  });

  it("refuses the admin credential on an environment route with 403", async () => {
    expectProblem(await api(ADMIN_KEY, "GET", "/v1/workflows"), 403, "forbidden");
  });

  it("answers an unknown admin path with 404 for the admin", async () => {
    expectProblem(await api(ADMIN_KEY, "GET", "/v1/admin/nothing-here"), 404, "not_found");
  });
});
