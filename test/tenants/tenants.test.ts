import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Tenant, TenantList } from "../../src/features/tenants/schemas";
import type { Problem } from "../../src/lib/errors";
import { createEnvironment } from "../factories";
import { api } from "../request";

let key: string;
beforeAll(async () => {
  ({ key } = await createEnvironment());
});

const expectProblem = (res: { status: number; headers: Headers; body: unknown }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect((res.body as Problem).code).toBe(code);
};

describe("POST /v1/tenants", () => {
  it("creates a tenant with its brand, data and defaults", async () => {
    const res = await api<Tenant>(key, "POST", "/v1/tenants", {
      id: "acme",
      name: "Acme Inc.",
      data: { plan: "enterprise" },
      brand: { name: "Acme", colors: { primary: "#b91c1c" } },
      preferences: { channels: { sms: false }, workflows: { digest: { enabled: false } } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: "acme",
      name: "Acme Inc.",
      data: { plan: "enterprise" },
      brand: { name: "Acme", colors: { primary: "#b91c1c" } },
      preferences: { channels: { sms: false }, workflows: { digest: { enabled: false } } },
    });
    // A brand field left out stays out: the environment's applies.
    expect(res.body.brand).not.toHaveProperty("footer");
  });

  it("answers 409 tenant_exists for a taken id", async () => {
    await api(key, "POST", "/v1/tenants", { id: "dup", name: "A" });
    expectProblem(await api(key, "POST", "/v1/tenants", { id: "dup", name: "B" }), 409, "tenant_exists");
  });

  it.each([
    ["an empty id", { id: " ", name: "x" }],
    ["an id over 256 characters", { id: "x".repeat(257), name: "x" }],
    ["no name", { id: "nameless" }],
    ["a bad colour", { id: "c", name: "c", brand: { colors: { primary: "red" } } }],
    ["an unknown field", { id: "u", name: "u", plan: 1 }],
    ["data over 16 KiB", { id: "big", name: "big", data: { blob: "x".repeat(17 * 1024) } }],
    ["a bad workflow key in defaults", { id: "w", name: "w", preferences: { workflows: { "Not A Key": { enabled: false } } } }],
  ])("refuses %s", async (_label, body) => {
    expectProblem(await api(key, "POST", "/v1/tenants", body), 422, "validation_failed");
  });
});

describe("GET /v1/tenants", () => {
  it("pages by id and searches id and name", async () => {
    const { key: own } = await createEnvironment();
    for (const [id, name] of [
      ["t-1", "Globex"],
      ["t-2", "Initech"],
      ["t-3", "Globex Europe"],
    ]) {
      await api(own, "POST", "/v1/tenants", { id, name });
    }
    const first = await api<TenantList>(own, "GET", "/v1/tenants?limit=2");
    expect(first.body.data.map((t) => t.id)).toEqual(["t-1", "t-2"]);
    const second = await api<TenantList>(own, "GET", `/v1/tenants?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((t) => t.id)).toEqual(["t-3"]);
    expect(second.body.nextCursor).toBeNull();
    const found = await api<TenantList>(own, "GET", "/v1/tenants?q=globex");
    expect(found.body.data.map((t) => t.id)).toEqual(["t-1", "t-3"]);
    const byId = await api<TenantList>(own, "GET", "/v1/tenants?q=t-2");
    expect(byId.body.data.map((t) => t.id)).toEqual(["t-2"]);
    expectProblem(await api(own, "GET", "/v1/tenants?cursor=nope"), 422, "validation_failed");
  });

  it("never shows another environment's tenants", async () => {
    const { key: other } = await createEnvironment();
    expectProblem(await api(other, "GET", "/v1/tenants/acme"), 404, "tenant_not_found");
  });
});

describe("PATCH and DELETE /v1/tenants/{id}", () => {
  it("changes the fields given, clears null ones, and audits each change", async () => {
    await api(key, "POST", "/v1/tenants", { id: "patchy", name: "P", data: { a: 1 }, brand: { name: "P" } });
    const res = await api<Tenant>(key, "PATCH", "/v1/tenants/patchy", { name: "Patchy", brand: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Patchy", data: { a: 1 }, brand: {} });
    const audit = await api<{ data: { action: string; resource: string }[] }>(key, "GET", "/v1/audit-log?resource=tenant");
    expect(audit.body.data.filter((e) => e.resource === "tenant").map((e) => e.action)).toEqual(
      expect.arrayContaining(["created", "updated"]),
    );
    expectProblem(await api(key, "PATCH", "/v1/tenants/missing", { name: "x" }), 404, "tenant_not_found");
  });

  it("deletes the tenant and its subscribers' preferences for it", async () => {
    await api(key, "POST", "/v1/tenants", { id: "gone", name: "Gone" });
    await api(key, "POST", "/v1/subscribers", { subscriberId: "sub-gone" });
    const put = await api(key, "PUT", "/v1/subscribers/sub-gone/preferences?tenant=gone", { channels: { email: false } });
    expect(put.status).toBe(200);
    expect((await api(key, "DELETE", "/v1/tenants/gone")).status).toBe(204);
    expectProblem(await api(key, "GET", "/v1/tenants/gone"), 404, "tenant_not_found");
    // The subscriber stays; a tenant made again under the id starts without the old preferences.
    expect((await api(key, "GET", "/v1/subscribers/sub-gone")).status).toBe(200);
    await api(key, "POST", "/v1/tenants", { id: "gone", name: "Gone again" });
    const prefs = await api<{ channels: { email: boolean } }>(key, "GET", "/v1/subscribers/sub-gone/preferences?tenant=gone");
    expect(prefs.body.channels.email).toBe(true);
    expectProblem(await api(key, "DELETE", "/v1/tenants/gone-twice"), 404, "tenant_not_found");
  });
});

describe("the tenant routes under bad input", () => {
  const edge = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(null, "", " ", "#12345", "https://x.example/a.png", "💥", "\u0000", "%", "_"),
    fc.integer({ min: 200, max: 20_000 }).map((n) => "x".repeat(n)),
  );
  const body = fc.record(
    {
      id: edge,
      name: edge,
      data: edge,
      brand: fc.oneof(edge, fc.record({ name: edge, colors: fc.oneof(edge, fc.dictionary(fc.string({ maxLength: 8 }), edge)) })),
      preferences: fc.oneof(edge, fc.record({ channels: edge, workflows: fc.dictionary(fc.string({ maxLength: 8 }), edge) })),
    },
    { requiredKeys: [] },
  );
  const id = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("acme", "%2F", "a".repeat(300)));
  type Case = { method: "POST" | "PATCH" | "GET" | "DELETE"; path: string; body?: unknown };
  const cases: fc.Arbitrary<Case> = fc.oneof(
    body.map((b) => ({ method: "POST" as const, path: "/v1/tenants", body: b })),
    edge.map((b) => ({ method: "POST" as const, path: "/v1/tenants", body: b })),
    fc.tuple(id, body).map(([i, b]) => ({ method: "PATCH" as const, path: `/v1/tenants/${encodeURIComponent(i)}`, body: b })),
    fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([q, cursor]) => ({
      method: "GET" as const,
      path: `/v1/tenants?q=${encodeURIComponent(q)}&cursor=${encodeURIComponent(cursor)}`,
    })),
    id.map((i) => ({ method: "DELETE" as const, path: `/v1/tenants/${encodeURIComponent(i)}` })),
  );

  it("never answer a 5xx, and every error is a problem document", async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ method, path, body: b }) => {
        const res = await api(key, method, path, b);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
