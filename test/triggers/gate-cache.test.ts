import { describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";

describe("the workflow gate cache of the accept path", () => {
  const workflow = (key: string, active: boolean) => ({
    key,
    name: key,
    active,
    steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hello" } }],
  });

  it("refuses a trigger at once after the workflow is deactivated through this isolate", async () => {
    const { key } = await createEnvironment();
    const wf = unique("wf").toLowerCase();
    expect((await api(key, "POST", "/v1/workflows", workflow(wf, true))).status).toBe(201);
    expect((await api(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" })).status).toBe(202);
    expect((await api(key, "PUT", `/v1/workflows/${wf}`, workflow(wf, false))).status).toBe(200);
    const refused = await api<{ code: string }>(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("workflow_inactive");
  });

  it("accepts a trigger at once after an unknown workflow is created", async () => {
    const { key } = await createEnvironment();
    const wf = unique("wf").toLowerCase();
    expect((await api(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" })).status).toBe(404);
    expect((await api(key, "POST", "/v1/workflows", workflow(wf, true))).status).toBe(201);
    expect((await api(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" })).status).toBe(202);
  });

  it("answers 404 at once after the workflow is deleted", async () => {
    const { key } = await createEnvironment();
    const wf = unique("wf").toLowerCase();
    await api(key, "POST", "/v1/workflows", workflow(wf, true));
    expect((await api(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" })).status).toBe(202);
    expect((await api(key, "DELETE", `/v1/workflows/${wf}`)).status).toBe(204);
    expect((await api(key, "POST", "/v1/trigger", { workflow: wf, to: "u-1" })).status).toBe(404);
  });
});
