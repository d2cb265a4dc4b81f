import { describe, expect, it } from "vitest";
import type { ApiKeyCreated, ApiKeyList, Rotation } from "../../src/features/environments/schemas";
import { admin, adminEnvironment } from "../admin/helpers";
import { api, errorPaths, expectProblem } from "../request";
import { mcpKey } from "./helpers";

describe("POST /v1/admin/environments/{slug}/keys with kind mcp", () => {
  it("creates an MCP key with its scopes, shown once and listed with its kind", async () => {
    const { environment } = await adminEnvironment();
    const key = await mcpKey(environment.slug, ["read", "propose"], "assistant");
    expect(key).toEqual(expect.objectContaining({ kind: "mcp", scopes: ["read", "propose"], name: "assistant", status: "active" }));
    const listed = (await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys`)).body.data;
    expect(listed.map((k) => [k.name, k.kind, k.scopes])).toEqual([
      ["first", "api", []],
      ["assistant", "mcp", ["read", "propose"]],
    ]);
    expect(JSON.stringify(listed)).not.toContain(key.key);
  });

  it.each([
    ["an MCP key without scopes", { kind: "mcp" }],
    ["an MCP key with no scope", { kind: "mcp", scopes: [] }],
    ["an unknown scope", { kind: "mcp", scopes: ["read", "admin"] }],
    ["a scope twice", { kind: "mcp", scopes: ["read", "read"] }],
    ["scopes on an API key", { kind: "api", scopes: ["read"] }],
  ])("refuses %s", async (_, body) => {
    const { environment } = await adminEnvironment();
    const res = await admin("POST", `/environments/${environment.slug}/keys`, { name: "x", ...body });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)[0]).toMatch(/^scopes/);
  });

  it("keeps an MCP key's kind and scopes when it is rotated", async () => {
    const { environment } = await adminEnvironment();
    const key = await mcpKey(environment.slug, ["trigger"]);
    const rotated = await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 0 });
    expect(rotated.body.key).toEqual(expect.objectContaining({ kind: "mcp", scopes: ["trigger"] }));
  });
});

describe("an MCP key outside /mcp", () => {
  it("is refused by the API, which an API key of the same environment reaches", async () => {
    const { environment, key } = await adminEnvironment();
    const mcp = await mcpKey(environment.slug, ["read", "trigger", "propose", "manage"]);
    expect((await api(key.key, "GET", "/v1/workflows")).status).toBe(200);
    for (const [method, path] of [
      ["GET", "/v1/workflows"],
      ["POST", "/v1/trigger"],
      ["GET", "/v1/messages"],
    ] as const) {
      const res = await api(mcp.key, method, path, method === "POST" ? { workflow: "w", to: "s" } : undefined);
      expectProblem(res, 403, "forbidden");
      expect((res.body as { detail: string }).detail).toContain("/mcp");
    }
  });

  it("cannot sign the dashboard in", async () => {
    const { environment } = await adminEnvironment();
    const mcp = await mcpKey(environment.slug, ["read"]);
    const res = await api(null, "POST", "/v1/dashboard/session", { credential: mcp.key }, { headers: { "x-clarion-dashboard": "1" } });
    expectProblem(res, 403, "forbidden");
  });

  it("cannot use the admin API", async () => {
    const { environment } = await adminEnvironment();
    const mcp = await mcpKey(environment.slug, ["manage"]);
    expectProblem(await api(mcp.key, "GET", "/v1/admin/environments"), 403, "forbidden");
  });
});

describe("an API key created without a kind", () => {
  it("is an api key, as before", async () => {
    const { environment } = await adminEnvironment();
    const res = await admin<ApiKeyCreated>("POST", `/environments/${environment.slug}/keys`, { name: "plain" });
    expect(res.body).toEqual(expect.objectContaining({ kind: "api", scopes: [] }));
  });
});
