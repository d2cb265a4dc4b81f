import { describe, expect, it } from "vitest";
import { createEnvironment } from "./factories";
import { api, expectProblem } from "./request";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("x-request-id", () => {
  it("is generated (UUIDv7) when the client sends none", async () => {
    const res = await api(null, "GET", "/health");
    expect(res.headers.get("x-request-id")).toMatch(UUID_V7);
  });

  it("echoes a well-formed id the client sends, in the header and the problem", async () => {
    const res = await api(null, "GET", "/v1/workflows", undefined, { headers: { "x-request-id": "client-id_42=" } });
    expect(res.headers.get("x-request-id")).toBe("client-id_42=");
    expect(expectProblem(res, 401, "unauthorized").requestId).toBe("client-id_42=");
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
