import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/features/audit/schemas";
import { createEnvironment, workflowBody } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";
import { auditLog, ndjson } from "./helpers";

let environment: { id: string; key: string; slug: string };
let other: { id: string; key: string; slug: string };
beforeAll(async () => {
  [environment, other] = await Promise.all([createEnvironment(), createEnvironment()]);
  for (let i = 0; i < 5; i++) {
    expect((await api(environment.key, "POST", "/v1/variables", { key: `V${i}`, value: `${i}` })).status).toBe(201);
  }
  expect((await api(environment.key, "POST", "/v1/workflows", workflowBody())).status).toBe(201);
  expect((await api(other.key, "POST", "/v1/variables", { key: "ELSEWHERE", value: "x" })).status).toBe(201);
});

describe("GET /v1/audit-log", () => {
  it("pages newest first with a cursor, only the key's environment", async () => {
    const first = await auditLog(environment.key, "limit=4");
    expect(first.body.data).toHaveLength(4);
    const second = await auditLog(environment.key, `limit=4&cursor=${first.body.nextCursor}`);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
    const all = [...first.body.data, ...second.body.data];
    expect(all.map((e) => e.id)).toEqual(
      all
        .map((e) => e.id)
        .sort()
        .reverse(),
    );
    expect(all.every((e) => e.environment === environment.slug)).toBe(true);
    expect(all.map((e) => e.resourceId)).not.toContain("ELSEWHERE");
  });

  it("filters by resource, action, actor and time", async () => {
    expect((await auditLog(environment.key, "resource=workflow")).body.data).toHaveLength(1);
    expect((await auditLog(environment.key, "resource=variable&resourceId=V3")).body.data.map((e) => e.resourceId)).toEqual(["V3"]);
    expect((await auditLog(environment.key, "action=deleted")).body.data).toHaveLength(0);
    const [entry] = (await auditLog(environment.key, "limit=1")).body.data as [AuditEntry];
    expect((await auditLog(environment.key, `actor=${entry.actor.id}`)).body.data).toHaveLength(6);
    expect((await auditLog(environment.key, "actor=admin")).body.data).toHaveLength(0);
    expect(
      (await auditLog(environment.key, `after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data,
    ).toHaveLength(0);
    expect(
      (await auditLog(environment.key, `before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data,
    ).toHaveLength(6);
  });

  it("exports every match as NDJSON, by Accept or by ?format=", async () => {
    for (const [path, headers] of [
      ["/v1/audit-log?resource=variable", { accept: "application/x-ndjson" }],
      ["/v1/audit-log?resource=variable&format=ndjson", {}],
    ] as const) {
      const text = await ndjson(environment.key, path, headers);
      const lines = text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as AuditEntry);
      expect(lines.map((e) => e.resourceId)).toEqual(["V4", "V3", "V2", "V1", "V0"]);
    }
  });

  it("has no route that changes or deletes an entry", async () => {
    const [entry] = (await auditLog(environment.key, "limit=1")).body.data as [AuditEntry];
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect((await api(environment.key, method, "/v1/audit-log", {})).status).toBeGreaterThanOrEqual(404);
      expect((await api(environment.key, method, `/v1/audit-log/${entry.id}`, {})).status).toBeGreaterThanOrEqual(404);
    }
    expect((await auditLog(environment.key, "limit=1")).body.data[0]).toEqual(entry);
  });

  it.each([["resource=nothing"], ["action=exploded"], ["cursor=not-an-id"], ["after=yesterday"], ["limit=0"], ["limit=501"]])(
    "refuses %s with 422",
    async (query) => {
      expectProblem(await auditLog(environment.key, query), 422, "validation_failed");
    },
  );

  it("never answers 5xx to fuzzed queries", async () => {
    const names = ["resource", "resourceId", "action", "actor", "after", "before", "cursor", "limit", "format", "environment"];
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), fc.string({ maxLength: 300 })), fc.boolean(), async (query, asNdjson) => {
        const search = new URLSearchParams(query).toString();
        for (const [key, path] of [
          [environment.key, `/v1/audit-log?${search}`],
          [ADMIN_KEY, `/v1/admin/audit-log?${search}`],
        ] as const) {
          const res = await SELF.fetch(`http://clarion.test${path}`, {
            headers: { authorization: `ApiKey ${key}`, ...(asNdjson ? { accept: "application/x-ndjson" } : {}) },
          });
          await res.arrayBuffer();
          expect(res.status).toBeLessThan(500);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("GET /v1/admin/audit-log", () => {
  it("reads across environments, one with `environment`, and refuses an environment key", async () => {
    const across = await api<{ data: AuditEntry[] }>(ADMIN_KEY, "GET", "/v1/admin/audit-log?resource=variable&limit=500");
    const slugs = new Set(across.body.data.map((e) => e.environment));
    expect(slugs.has(environment.slug) && slugs.has(other.slug)).toBe(true);
    const one = await api<{ data: AuditEntry[] }>(ADMIN_KEY, "GET", `/v1/admin/audit-log?environment=${other.slug}`);
    expect(one.body.data.map((e) => e.resourceId)).toEqual(["ELSEWHERE"]);
    expectProblem(await api(environment.key, "GET", "/v1/admin/audit-log"), 403, "forbidden");
  });
});
