import { describe, expect, it } from "vitest";
import { createEnvironment } from "../factories";
import { auditLog } from "../audit/helpers";
import { api, expectProblem } from "../request";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("x-request-id", () => {
  it("is generated (UUIDv7) when the client sends none", async () => {
    const res = await api(null, "GET", "/health");
    expect(res.headers.get("x-request-id")).toMatch(UUID_V7);
  });

  it("keeps its own id when the client sends one, in the header and the problem", async () => {
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { "x-request-id": "client-id_42=" } });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(UUID_V7);
    expect(expectProblem(res, 401, "unauthorized").requestId).toBe(id);
  });

  it("records Clarion's id as the audit entry's requestId and the client's as its clientRequestId", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false }, { headers: { "x-request-id": "client-id_42=" } });
    expect(res.status).toBe(200);
    const [entry] = (await auditLog(key, "resource=in_app_settings")).body.data;
    expect(entry).toMatchObject({ requestId: res.headers.get("x-request-id"), clientRequestId: "client-id_42=" });
  });

  it("records no clientRequestId when the client sends none, or one it would not keep", async () => {
    const { key } = await createEnvironment();
    await api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false });
    await api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: true }, { headers: { "x-request-id": "a b" } });
    const entries = (await auditLog(key, "resource=in_app_settings")).body.data;
    expect(entries.map((e) => e.clientRequestId)).toEqual([null, null]);
    for (const e of entries) expect(e.requestId).toMatch(UUID_V7);
  });

  it.each([
    ["characters outside [A-Za-z0-9_=-]", "<script>alert(1)</script>"],
    ["a log-forging id", "abc\ttotally-legit"],
    ["an id over 255 characters", "a".repeat(256)],
  ])("replaces %s with its own", async (_label, sent) => {
    const { key } = await createEnvironment();
    const res = await api(key, "GET", "/v1/nothing-here", undefined, { headers: { "x-request-id": sent } });
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(UUID_V7);
    expect(expectProblem(res, 404, "not_found").requestId).toBe(id);
  });
});
