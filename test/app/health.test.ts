import { describe, expect, it } from "vitest";
import { api } from "../request";

describe("GET /health", () => {
  it("answers without an API key", async () => {
    const res = await api(null, "GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});

describe("unknown routes", () => {
  it("answer 404 problem+json", async () => {
    const res = await api<{ code: string }>(null, "GET", "/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(res.body.code).toBe("not_found");
  });
});
