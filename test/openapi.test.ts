import { describe, expect, it } from "vitest";
import { api } from "./request";

describe("GET /openapi.json", () => {
  it("describes the public endpoints from the zod schemas", async () => {
    const res = await api<{ openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(
      null,
      "GET",
      "/openapi.json",
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/v1/trigger", "/v1/trigger/bulk", "/sub", "/sub/bulk", "/v1/workflows", "/v1/workflows/{key}"]),
    );
    expect(res.body.components.schemas).toHaveProperty("TriggerRequest");
    expect(res.body.components.schemas).toHaveProperty("Step");
  });

  it("serves an API reference page at /docs", async () => {
    const { SELF } = await import("cloudflare:test");
    const res = await SELF.fetch("http://clarion.test/docs");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("/openapi.json");
  });
});
