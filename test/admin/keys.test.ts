import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ownerOfKey } from "../../src/features/environments/api-keys";
import { keyTag } from "../../src/features/environments/key-format";
import type { ApiKey, ApiKeyCreated, ApiKeyList, Rotation } from "../../src/features/environments/schemas";
import worker from "../../src/index";
import { api, expectProblem, errorPaths } from "../request";
import { admin, adminEnvironment } from "./helpers";

const works = async (key: string) => (await api(key, "GET", "/v1/workflows")).status;

describe("POST /v1/admin/environments/{slug}/keys", () => {
  it("returns a key, shown once, that works at once", async () => {
    const { environment, key } = await adminEnvironment();
    expect(key).toEqual(
      expect.objectContaining({ environment: environment.slug, name: "first", status: "active", lastUsedAt: null, expiresAt: null }),
    );
    expect(key.key.startsWith(key.prefix)).toBe(true);
    expect(key.key).toMatch(new RegExp(`^ck_${keyTag(environment.slug)}_[A-Za-z0-9]{32}$`));
    expect(await works(key.key)).toBe(200);
  });

  it("gives each key a prefix with random characters, so an environment's keys list apart", async () => {
    const { environment, key } = await adminEnvironment();
    const second = (await admin<ApiKeyCreated>("POST", `/environments/${environment.slug}/keys`, { name: "second" })).body;
    const tag = `ck_${keyTag(environment.slug)}_`;
    for (const created of [key, second]) expect(created.prefix).toBe(created.key.slice(0, tag.length + 6));
    expect(second.prefix).not.toBe(key.prefix);
    const listed = (await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys`)).body.data.map((k) => k.prefix);
    expect(listed).toEqual([key.prefix, second.prefix]);
  });

  it.each([
    ["development", "ck_dev_"],
    ["production", "ck_prod_"],
    ["staging-eu", "ck_stagingeu_"],
  ])("names the %s environment %s in its keys", (slug, start) => {
    expect(`ck_${keyTag(slug)}_`).toBe(start);
  });

  it("binds the key to its own environment", async () => {
    const a = await adminEnvironment();
    const b = await adminEnvironment();
    await api(a.key.key, "POST", "/v1/variables", { key: "ONLY_A", value: "a" });
    expect((await api(a.key.key, "GET", "/v1/variables/ONLY_A")).status).toBe(200);
    expectProblem(await api(b.key.key, "GET", "/v1/variables/ONLY_A"), 404, "variable_not_found");
  });

  it("answers 404 for an unknown environment", async () => {
    expectProblem(await admin("POST", "/environments/no-such-env/keys", { name: "x" }), 404, "environment_not_found");
  });

  it.each([
    [{ name: "" }, "name"],
    [{ expiresAt: "tomorrow" }, "expiresAt"],
    [{ scope: "all" }, "(root)"],
  ])("refuses %j with 422 naming %s", async (body, path) => {
    const { environment } = await adminEnvironment();
    const res = await admin("POST", `/environments/${environment.slug}/keys`, body);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain(path);
  });

  it("refuses to create a key already expired", async () => {
    const { environment } = await adminEnvironment();
    const past = await admin("POST", `/environments/${environment.slug}/keys`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expectProblem(past, 422, "validation_failed");
    expect(errorPaths(past.body)).toEqual(["expiresAt"]);
  });

  it("refuses a key past the expiresAt it was created with", async () => {
    const { environment } = await adminEnvironment();
    const soon = await admin<ApiKeyCreated>("POST", `/environments/${environment.slug}/keys`, {
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(soon.body.status).toBe("expiring");
    expect(await ownerOfKey(env.DB, soon.body.key, Date.now() + 61_000)).toBeNull();
  });
});

describe("GET /v1/admin/environments/{slug}/keys", () => {
  it("lists prefix, name and dates, never the secret or its hash", async () => {
    const { environment, key } = await adminEnvironment();
    const res = await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys`);
    expect(res.status).toBe(200);
    const { key: _secret, ...listed } = key;
    expect(res.body.data).toEqual([listed]);
    expect(JSON.stringify(res.body)).not.toContain(key.key);
  });

  it("records when a key was last used", async () => {
    const { environment, key } = await adminEnvironment();
    // Straight to the Worker's fetch(), so the test waits for the write the answer left running (waitUntil).
    const ctx = createExecutionContext();
    const request = new Request("http://clarion.test/v1/workflows", { headers: { authorization: `ApiKey ${key.key}` } });
    expect((await worker.fetch(request, env, ctx)).status).toBe(200);
    await waitOnExecutionContext(ctx);
    const listed = (await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys`)).body.data[0]!;
    expect(Date.parse(listed.lastUsedAt!)).toBeGreaterThan(Date.parse(key.createdAt) - 1);
  });

  it("writes last-used at most once a minute per key in an isolate, not on every request", async () => {
    const { key } = await adminEnvironment();
    const first = await ownerOfKey(env.DB, key.key, 1_000_000);
    await first?.touch;
    const again = await ownerOfKey(env.DB, key.key, 1_000_000 + 30_000);
    const later = await ownerOfKey(env.DB, key.key, 1_000_000 + 61_000);
    expect([first?.touch, again?.touch, later?.touch].map(Boolean)).toEqual([true, false, true]);
  });

  it("leaves revoked keys out unless asked", async () => {
    const { environment, key } = await adminEnvironment();
    await admin("POST", `/keys/${key.id}/revoke`);
    expect((await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys`)).body.data).toEqual([]);
    const all = await admin<ApiKeyList>("GET", `/environments/${environment.slug}/keys?includeRevoked=true`);
    expect(all.body.data.map((k) => [k.id, k.status])).toEqual([[key.id, "revoked"]]);
  });
});

describe("POST /v1/admin/keys/{id}/revoke", () => {
  it("refuses a revoked key, even one this isolate has just cached", async () => {
    const { key } = await adminEnvironment();
    expect(await works(key.key)).toBe(200);
    const res = await admin<ApiKey>("POST", `/keys/${key.id}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ id: key.id, status: "revoked", revokedAt: expect.any(String) }));
    expectProblem(await api(key.key, "GET", "/v1/workflows"), 401, "unauthorized");
  });

  it("refuses a key revoked elsewhere once this isolate's minute of caching is over", async () => {
    const { key } = await adminEnvironment();
    const now = Date.now();
    expect(await ownerOfKey(env.DB, key.key, now)).not.toBeNull();
    // Revoked behind this isolate's back, as another isolate would.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(now, key.id).run();
    expect(await ownerOfKey(env.DB, key.key, now + 59_000)).not.toBeNull();
    expect(await ownerOfKey(env.DB, key.key, now + 60_001)).toBeNull();
  });

  it("leaves the environment's other keys working", async () => {
    const { environment, key } = await adminEnvironment();
    const other = await admin<ApiKeyCreated>("POST", `/environments/${environment.slug}/keys`, { name: "other" });
    await admin("POST", `/keys/${key.id}/revoke`);
    expect(await works(other.body.key)).toBe(200);
  });

  it("answers 404 for an unknown key", async () => {
    expectProblem(await admin("POST", "/keys/key_nope/revoke"), 404, "api_key_not_found");
  });
});

describe("POST /v1/admin/keys/{id}/rotate", () => {
  it("returns a new key and lets both work during the overlap", async () => {
    const { key } = await adminEnvironment();
    const before = Date.now();
    const res = await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 2 });
    expect(res.status).toBe(201);
    expect(res.body.key.key).not.toBe(key.key);
    expect(res.body.previous.status).toBe("expiring");
    const end = Date.parse(res.body.previous.expiresAt!);
    expect(end).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(end).toBeLessThan(Date.now() + 2 * 3_600_000 + 1000);
    expect([await works(key.key), await works(res.body.key.key)]).toEqual([200, 200]);
  });

  it("gives a 24 h overlap by default", async () => {
    const { key } = await adminEnvironment();
    const res = await admin<Rotation>("POST", `/keys/${key.id}/rotate`, {});
    const hours = (Date.parse(res.body.previous.expiresAt!) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it("stops the old key once the overlap is over, the new one keeps working", async () => {
    const { key } = await adminEnvironment();
    const rotation = (await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 1 })).body;
    const end = Date.parse(rotation.previous.expiresAt!);
    expect(await ownerOfKey(env.DB, key.key, end - 1)).not.toBeNull();
    expect(await ownerOfKey(env.DB, key.key, end + 1)).toBeNull();
    expect(await ownerOfKey(env.DB, rotation.key.key, end + 1)).not.toBeNull();
  });

  it("ends the old key at once with overlapHours 0", async () => {
    const { key } = await adminEnvironment();
    expect(await works(key.key)).toBe(200);
    const rotation = (await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 0 })).body;
    expect(rotation.previous.status).toBe("expired");
    expectProblem(await api(key.key, "GET", "/v1/workflows"), 401, "unauthorized");
    expect(await works(rotation.key.key)).toBe(200);
  });

  it("refuses to rotate a revoked key with 409", async () => {
    const { key } = await adminEnvironment();
    await admin("POST", `/keys/${key.id}/revoke`);
    expectProblem(await admin("POST", `/keys/${key.id}/rotate`, {}), 409, "api_key_revoked");
  });

  it("refuses to rotate an expired key with 409", async () => {
    const { key } = await adminEnvironment();
    await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?")
      .bind(Date.now() - 1000, key.id)
      .run();
    expectProblem(await admin("POST", `/keys/${key.id}/rotate`, {}), 409, "api_key_expired");
  });

  it("rotates a key still in its overlap, keeping its earlier end", async () => {
    const { key } = await adminEnvironment();
    const first = (await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 1 })).body;
    const again = await admin<Rotation>("POST", `/keys/${key.id}/rotate`, { overlapHours: 5 });
    expect(again.status).toBe(201);
    expect(again.body.previous.expiresAt).toBe(first.previous.expiresAt);
  });

  it.each([[{ overlapHours: -1 }], [{ overlapHours: 721 }], [{ overlapHours: "24" }]])("refuses %j with 422", async (body) => {
    const { key } = await adminEnvironment();
    const res = await admin("POST", `/keys/${key.id}/rotate`, body);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain("overlapHours");
  });

  it("answers 404 for an unknown key", async () => {
    expectProblem(await admin("POST", "/keys/key_nope/rotate", {}), 404, "api_key_not_found");
  });
});
