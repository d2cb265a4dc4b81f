import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, workflowBody } from "../factories";
import { api } from "../request";
import { auditLog } from "./helpers";

let environment: { id: string; key: string; slug: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

describe("the audit log of workflows", () => {
  it("records create, update, deactivate, revert and delete with before and after, newest first", async () => {
    const body = workflowBody();
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    const edited = { ...body, name: "Renamed" };
    expect((await api(environment.key, "PUT", `/v1/workflows/${body.key}`, edited)).status).toBe(200);
    expect((await api(environment.key, "PUT", `/v1/workflows/${body.key}`, { ...edited, active: false })).status).toBe(200);
    expect((await api(environment.key, "POST", `/v1/workflows/${body.key}/revert`, { version: 1 })).status).toBe(200);
    expect((await api(environment.key, "DELETE", `/v1/workflows/${body.key}`)).status).toBe(204);

    const res = await auditLog(environment.key, `resource=workflow&resourceId=${body.key}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e) => e.action)).toEqual(["deleted", "reverted", "deactivated", "updated", "created"]);
    const [deleted, , , updated, created] = res.body.data;
    expect(created).toMatchObject({
      environment: environment.slug,
      resource: "workflow",
      resourceId: body.key,
      actor: { type: "key", id: expect.stringMatching(/^key_/), name: "test" },
      before: null,
      after: { key: body.key, name: "Order shipped" },
      requestId: expect.any(String),
    });
    expect(updated).toMatchObject({ before: { name: "Order shipped" }, after: { name: "Renamed" } });
    expect(deleted).toMatchObject({ before: { key: body.key }, after: null });
  });

  it("records nothing for a save that changed nothing, or a create that was refused", async () => {
    const body = workflowBody();
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(409);
    expect((await api(environment.key, "PUT", `/v1/workflows/${body.key}`, body)).status).toBe(200);
    const res = await auditLog(environment.key, `resourceId=${body.key}`);
    expect(res.body.data.map((e) => e.action)).toEqual(["created"]);
  });

  it("records a write sent with Clarion-Import: true (clarion workflows import) as imported", async () => {
    const body = workflowBody();
    const headers = { headers: { "clarion-import": "true" } };
    expect((await api(environment.key, "POST", "/v1/workflows", body, headers)).status).toBe(201);
    expect((await api(environment.key, "PUT", `/v1/workflows/${body.key}`, { ...body, name: "From file" }, headers)).status).toBe(200);
    const res = await auditLog(environment.key, `resourceId=${body.key}`);
    expect(res.body.data.map((e) => e.action)).toEqual(["imported", "imported"]);
  });

  it("records nothing for a save refused by If-Match", async () => {
    const body = workflowBody();
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    const stale = await api(
      environment.key,
      "PUT",
      `/v1/workflows/${body.key}`,
      { ...body, name: "X" },
      { headers: { "if-match": '"7"' } },
    );
    expect(stale.status).toBe(412);
    expect((await auditLog(environment.key, `resourceId=${body.key}`)).body.data).toHaveLength(1);
  });
});
