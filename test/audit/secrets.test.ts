import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ApiKeyCreated } from "../../src/features/environments/schemas";
import { createEnvironment, unique } from "../factories";
import { ADMIN_KEY, api } from "../request";
import { admin, adminEnvironment } from "../admin/helpers";
import { auditLog, ndjson } from "./helpers";

/** Every entry of the environment, as the API, the admin API and the NDJSON export answer them, and as stored. */
async function everywhere(key: string, environmentId: string, slug: string): Promise<string> {
  const page = await auditLog(key, "limit=500");
  const across = await api(ADMIN_KEY, "GET", `/v1/admin/audit-log?environment=${slug}&limit=500`);
  const exported = await ndjson(key, "/v1/audit-log?format=ndjson");
  const stored = await env.DB.prepare("SELECT * FROM audit_log WHERE environment_id = ?").bind(environmentId).all();
  expect(page.body.data.length).toBeGreaterThan(0);
  return JSON.stringify([page.body, across.body, exported, stored.results]);
}

describe("secrets never reach the audit log", () => {
  it("variables: a secret value is masked before, after and in every export", async () => {
    const { id, key, slug } = await createEnvironment();
    const first = `first-${unique("s")}`;
    const second = `second-${unique("s")}`;
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: first, secret: true })).status).toBe(201);
    expect((await api(key, "PUT", "/v1/variables/TOKEN", { value: second })).status).toBe(200);
    expect((await api(key, "DELETE", "/v1/variables/TOKEN")).status).toBe(204);
    const text = await everywhere(key, id, slug);
    expect(text).not.toContain(first);
    expect(text).not.toContain(second);
    expect((await auditLog(key, "resource=variable")).body.data.map((e) => e.action)).toEqual(["deleted", "updated", "created"]);
  });

  it("integrations: credentials are masked", async () => {
    const { id, key, slug } = await createEnvironment();
    const apiKey = `re_${unique("cred")}`;
    const rotated = `re_${unique("cred2")}`;
    const created = await api<{ id: string }>(key, "POST", "/v1/integrations", {
      provider: "resend",
      credentials: { apiKey, from: "a@example.com" },
    });
    expect(created.status).toBe(201);
    const path = `/v1/integrations/${created.body.id}`;
    expect((await api(key, "PUT", path, { credentials: { apiKey: rotated, from: "a@example.com" } })).status).toBe(200);
    expect((await api(key, "DELETE", path)).status).toBe(204);
    const text = await everywhere(key, id, slug);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(rotated);
    const actions = (await auditLog(key, `resource=integration&resourceId=${created.body.id}`)).body.data.map((e) => e.action);
    expect(actions).toEqual(["deleted", "updated", "created"]);
  });

  it("webhook endpoints: the signing secret is never recorded, a rotation only says it happened", async () => {
    const { id, key, slug } = await createEnvironment();
    const created = await api<{ id: string; secret: string }>(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hook" });
    expect(created.status).toBe(201);
    const path = `/v1/webhook-endpoints/${created.body.id}`;
    const rotation = await api<{ secret: string }>(key, "POST", `${path}/rotate-secret`, {});
    expect(rotation.status).toBe(200);
    expect((await api(key, "PATCH", path, { enabled: false })).status).toBe(200);
    expect((await api(key, "DELETE", path)).status).toBe(204);
    const text = await everywhere(key, id, slug);
    expect(text).not.toContain(created.body.secret.replace(/^whsec_/, ""));
    expect(text).not.toContain(rotation.body.secret.replace(/^whsec_/, ""));
    const actions = (await auditLog(key, "resource=webhook_endpoint")).body.data.map((e) => e.action);
    expect(actions).toEqual(["deleted", "updated", "rotated", "created"]);
  });

  it("in-app settings: the HMAC secret is never recorded", async () => {
    const { id, key, slug } = await createEnvironment();
    const before = await api<{ hmacSecret: string }>(key, "GET", "/v1/in-app/settings");
    expect((await api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false })).status).toBe(200);
    const after = await api<{ hmacSecret: string }>(key, "POST", "/v1/in-app/settings/rotate-secret");
    const text = await everywhere(key, id, slug);
    expect(text).not.toContain(before.body.hmacSecret);
    expect(text).not.toContain(after.body.hmacSecret);
    const entries = (await auditLog(key, "resource=in_app_settings")).body.data;
    expect(entries.map((e) => e.action)).toEqual(["rotated", "updated"]);
    expect(entries[1]).toMatchObject({ before: { hmacRequired: true }, after: { hmacRequired: false } });
  });

  it("preference-link settings: branding is recorded, the link secret never", async () => {
    const { id, key, slug } = await createEnvironment();
    expect((await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme" })).status).toBe(200);
    expect((await api(key, "POST", "/v1/preference-links/rotate-secret")).status).toBe(200);
    const [{ secret }] = (
      await env.DB.prepare("SELECT secret FROM preference_link_settings WHERE environment_id = ?").bind(id).all<{ secret: string }>()
    ).results as [{ secret: string }];
    const text = await everywhere(key, id, slug);
    expect(text).not.toContain(secret);
    const entries = (await auditLog(key, "resource=preference_link_settings")).body.data;
    expect(entries.map((e) => e.action)).toEqual(["rotated"]);
    // The branding is the brand's now: the legacy route's change is a brand version.
    const brand = (await auditLog(key, "resource=brand")).body.data;
    expect(brand).toMatchObject([{ action: "created", before: null, after: { name: "Acme" } }]);
  });

  it("environments and keys: the key itself is never recorded, and the admin is the actor", async () => {
    const { environment, key } = await adminEnvironment();
    expect((await admin("PATCH", `/environments/${environment.slug}`, { name: "Renamed" })).status).toBe(200);
    const rotated = await admin<{ key: ApiKeyCreated }>("POST", `/keys/${key.id}/rotate`, { overlapHours: 1 });
    expect(rotated.status).toBe(201);
    expect((await admin("POST", `/keys/${rotated.body.key.id}/revoke`)).status).toBe(200);
    expect((await admin("POST", `/keys/${rotated.body.key.id}/revoke`)).status).toBe(200);
    const text = await everywhere(key.key, environment.id, environment.slug);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(rotated.body.key.key);
    const entries = (
      await admin<{ data: { resource: string; action: string; actor: unknown }[] }>("GET", `/audit-log?environment=${environment.slug}`)
    ).body.data;
    expect(entries.map((e) => `${e.resource}.${e.action}`)).toEqual([
      "api_key.revoked",
      "api_key.rotated",
      "environment.renamed",
      "api_key.created",
      "environment.created",
    ]);
    expect(entries.every((e) => JSON.stringify(e.actor) === JSON.stringify({ type: "admin", id: null, name: "admin" }))).toBe(true);
  });
});
