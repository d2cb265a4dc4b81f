import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { auditLog } from "../audit/helpers";
import type { InAppSettings } from "../../src/features/in-app/schemas";
import { subscriberHash } from "../../src/features/in-app/settings-repository";
import { createEnvironment } from "../factories";
import { api, expectProblem } from "../request";

const settings = (key: string) => api<InAppSettings>(key, "GET", "/v1/in-app/settings");

describe("GET /v1/in-app/settings", () => {
  it("makes the environment's identifier and secret once, with the Inbox URLs of this Clarion", async () => {
    const { key } = await createEnvironment();
    const first = await settings(key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      applicationIdentifier: expect.stringMatching(/^[0-9a-f]{24}$/),
      hmacSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
      hmacRequired: true,
      sessionProfileWrites: "create_only",
      apiUrl: "http://127.0.0.1:8787/novu",
      socketUrl: "ws://127.0.0.1:8787/novu/socket",
    });
    expect((await settings(key)).body).toEqual(first.body);
  });

  it("gives each environment its own identifier and secret", async () => {
    const [a, b] = await Promise.all([createEnvironment(), createEnvironment()]);
    const [one, two] = await Promise.all([settings(a.key), settings(b.key)]);
    expect(one.body.applicationIdentifier).not.toBe(two.body.applicationIdentifier);
    expect(one.body.hmacSecret).not.toBe(two.body.hmacSecret);
  });

  it("does not require a hash in the development environment", async () => {
    const { key } = await createEnvironment("development");
    expect((await settings(key)).body.hmacRequired).toBe(false);
  });

  it("answers 401 without an environment key", async () => {
    expectProblem(await api(null, "GET", "/v1/in-app/settings"), 401, "unauthorized");
  });
});

describe("PATCH /v1/in-app/settings", () => {
  it("turns the hash requirement off and on", async () => {
    const { key } = await createEnvironment();
    const off = await api<InAppSettings>(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false });
    expect(off.status).toBe(200);
    expect(off.body.hmacRequired).toBe(false);
    expect((await settings(key)).body.hmacRequired).toBe(false);
    expect((await api<InAppSettings>(key, "PATCH", "/v1/in-app/settings", { hmacRequired: true })).body.hmacRequired).toBe(true);
  });

  it("sets sessionProfileWrites (create_only by default) and keeps hmacRequired", async () => {
    const { key } = await createEnvironment();
    expect((await settings(key)).body.sessionProfileWrites).toBe("create_only");
    const res = await api<InAppSettings>(key, "PATCH", "/v1/in-app/settings", { sessionProfileWrites: "always" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sessionProfileWrites: "always", hmacRequired: true });
    expect((await settings(key)).body.sessionProfileWrites).toBe("always");
    const [entry] = (await auditLog(key, "resource=in_app_settings")).body.data;
    expect(entry).toMatchObject({
      action: "updated",
      before: { sessionProfileWrites: "create_only" },
      after: { sessionProfileWrites: "always", hmacRequired: true },
    });
  });

  it("changes nothing for a PATCH that changes nothing: no updatedAt, no audit entry", async () => {
    const { id, key } = await createEnvironment();
    await settings(key);
    await env.DB.prepare("UPDATE in_app_settings SET updated_at = 1000 WHERE environment_id = ?").bind(id).run();
    const res = await api<InAppSettings>(key, "PATCH", "/v1/in-app/settings", { hmacRequired: true, sessionProfileWrites: "create_only" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hmacRequired: true, sessionProfileWrites: "create_only" });
    const row = await env.DB.prepare("SELECT updated_at FROM in_app_settings WHERE environment_id = ?")
      .bind(id)
      .first<{ updated_at: number }>();
    expect(row?.updated_at).toBe(1000);
    expect((await auditLog(key, "resource=in_app_settings")).body.data).toEqual([]);
  });

  it.each([
    {},
    { hmacRequired: "yes" },
    { hmacRequired: true, hmacSecret: "mine" },
    { sessionProfileWrites: "sometimes" },
    { sessionProfileWrites: null },
  ])("refuses %j with 422", async (body) => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "PATCH", "/v1/in-app/settings", body), 422, "validation_failed");
  });
});

describe("POST /v1/in-app/settings/rotate-secret", () => {
  it("replaces the secret and keeps the identifier", async () => {
    const { key } = await createEnvironment();
    const before = (await settings(key)).body;
    const rotated = await api<InAppSettings>(key, "POST", "/v1/in-app/settings/rotate-secret");
    expect(rotated.status).toBe(200);
    expect(rotated.body.applicationIdentifier).toBe(before.applicationIdentifier);
    expect(rotated.body.hmacSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.hmacSecret).not.toBe(before.hmacSecret);
    expect((await settings(key)).body.hmacSecret).toBe(rotated.body.hmacSecret);
  });

  it("does not keep the new secret in an idempotent replay", async () => {
    const { key } = await createEnvironment();
    const headers = { "idempotency-key": "rotate-1" };
    const first = await api<InAppSettings>(key, "POST", "/v1/in-app/settings/rotate-secret", undefined, { headers });
    const replay = await api<Record<string, unknown>>(key, "POST", "/v1/in-app/settings/rotate-secret", undefined, { headers });
    expect(first.body.hmacSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(replay.body.hmacSecret).toBeUndefined();
    expect(replay.body.secretsOmitted).toEqual(["hmacSecret"]);
  });
});

describe("subscriberHash", () => {
  it("is hex HMAC-SHA256 of the subscriber id under the secret", async () => {
    expect(await subscriberHash("key", "The quick brown fox jumps over the lazy dog")).toBe(
      "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
    );
  });
});
