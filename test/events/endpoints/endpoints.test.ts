import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import { webhookEndpoints } from "../../../src/db/schema";
import type {
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointSecret,
} from "../../../src/features/events/endpoints/schemas";
import { EVENT_TYPES } from "../../../src/contract/event-types";
import { createEnvironment } from "../../factories";
import { api, errorPaths, expectProblem } from "../../request";
import { strictApi } from "../../strict-api";
import { awayFromWindowEdge } from "../../rate-limit/window";
import type { AuditEntry } from "../../../src/features/audit/schemas";
import { DEFAULT_ENDPOINTS_MAX, endpointsMax } from "../../../src/features/events/endpoints/limits";

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await createEnvironment());
  ({ key: otherKey } = await createEnvironment());
});

async function createEndpoint(body: Record<string, unknown> = { url: "https://example.com/hooks" }, apiKey = key) {
  const res = await api<WebhookEndpointCreated>(apiKey, "POST", "/v1/webhook-endpoints", body);
  if (res.status !== 201) throw new Error(`endpoint not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

describe("POST /v1/webhook-endpoints", () => {
  it("creates an endpoint for every event type, with a whsec_ secret of at least 24 bytes", async () => {
    const res = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", {
      url: "https://example.com/a",
      description: "CRM",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: "https://example.com/a", events: null, description: "CRM", enabled: true, disabledReason: null });
    expect(res.body.id).toMatch(/^ep_/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(atob(res.body.secret.slice("whsec_".length)).length).toBeGreaterThanOrEqual(24);
  });

  it("keeps the secret encrypted at rest", async () => {
    const endpoint = await createEndpoint();
    const [row] = await createDb(env.DB).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row!.secret).not.toContain(endpoint.secret.slice(6));
    expect(row!.secret).toMatch(/^v2\./);
  });

  it("takes a list of event types", async () => {
    const endpoint = await createEndpoint({ url: "https://example.com/b", events: ["message.failed", "message.bounced"] });
    expect(endpoint.events).toEqual(["message.failed", "message.bounced"]);
  });

  it.each([
    [{}, "url"],
    [{ url: "not a url" }, "url"],
    [{ url: "https://example.com", events: ["message.nope"] }, "events.0"],
    [{ url: "https://example.com", events: [] }, "events"],
    [{ url: "https://example.com", enabled: "yes" }, "enabled"],
    [{ url: "https://example.com", secret: "whsec_mine" }, ""],
    [{ url: 42 }, "url"],
  ])("refuses %j with 422 naming %s", async (body, path) => {
    const res = await api(key, "POST", "/v1/webhook-endpoints", body);
    expectProblem(res, 422, "validation_failed");
    if (path) expect(errorPaths(res.body)).toContain(path);
  });

  it.each([
    "https://169.254.169.254/latest/meta-data/",
    "https://127.0.0.1/hooks",
    "https://10.0.0.8/hooks",
    "https://[::1]/hooks",
    "http://example.com/hooks",
    "https://localhost/hooks",
  ])("refuses %s as a destination where private destinations are not allowed", async (url) => {
    const res = await strictApi(key, "POST", "/v1/webhook-endpoints", { url });
    expectProblem(res, 422, "destination_not_allowed");
    expect(errorPaths(res.body)).toEqual(["url"]);
  });

  it("refuses a metadata address even where private destinations are allowed", async () => {
    expectProblem(await api(key, "POST", "/v1/webhook-endpoints", { url: "http://169.254.169.254/" }), 422, "destination_not_allowed");
  });
});

describe("GET, PATCH, DELETE /v1/webhook-endpoints/{id}", () => {
  it("reads, lists, updates and deletes an endpoint without showing its secret", async () => {
    const endpoint = await createEndpoint();
    const read = await api<WebhookEndpoint>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("secret");
    const list = await api<WebhookEndpointList>(key, "GET", "/v1/webhook-endpoints?limit=100");
    expect(list.body.data.map((e) => e.id)).toContain(endpoint.id);
    expect(JSON.stringify(list.body)).not.toContain(endpoint.secret);

    const patched = await api<WebhookEndpoint>(key, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, {
      enabled: false,
      events: ["webhook.test"],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: false, events: ["webhook.test"], url: endpoint.url });

    expect((await api(key, "DELETE", `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(204);
    expectProblem(await api(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`), 404, "webhook_endpoint_not_found");
  });

  it("pages through endpoints newest first", async () => {
    const { key: own } = await createEnvironment();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await createEndpoint({ url: `https://example.com/${i}` }, own)).id);
    const first = await api<WebhookEndpointList>(own, "GET", "/v1/webhook-endpoints?limit=2");
    const second = await api<WebhookEndpointList>(own, "GET", `/v1/webhook-endpoints?limit=2&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((e) => e.id)).toEqual(made.reverse());
    expect(second.body.nextCursor).toBeNull();
  });

  it("refuses a blocked URL on update", async () => {
    const endpoint = await createEndpoint();
    const res = await strictApi(key, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { url: "https://192.168.1.1/x" });
    expectProblem(res, 422, "destination_not_allowed");
  });

  it("hides an endpoint of environment A from environment B", async () => {
    const endpoint = await createEndpoint();
    for (const [method, path, body] of [
      ["GET", `/v1/webhook-endpoints/${endpoint.id}`],
      ["GET", `/v1/webhook-endpoints/${endpoint.id}/secret`],
      ["PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { enabled: false }],
      ["POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {}],
      ["GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`],
      ["POST", `/v1/webhook-endpoints/${endpoint.id}/test`],
      ["POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() }],
      ["DELETE", `/v1/webhook-endpoints/${endpoint.id}`],
    ] as const) {
      expectProblem(await api(otherKey, method, path, body), 404, "webhook_endpoint_not_found");
    }
    const list = await api<WebhookEndpointList>(otherKey, "GET", "/v1/webhook-endpoints");
    expect(list.body.data.map((e) => e.id)).not.toContain(endpoint.id);
    expect((await api(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
  });
});

describe("secrets", () => {
  it("never keeps the secret in an idempotent replay of the create", async () => {
    const headers = { "idempotency-key": crypto.randomUUID() };
    const body = { url: "https://example.com/idem" };
    const first = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", body, { headers });
    const replay = await api<Record<string, unknown>>(key, "POST", "/v1/webhook-endpoints", body, { headers });
    expect(replay.headers.get("idempotency-replay")).toBe("true");
    expect(replay.body).toMatchObject({ id: first.body.id, secretsOmitted: ["secret"] });
    expect(JSON.stringify(replay.body)).not.toContain(first.body.secret.slice(6));
    const rows = await env.DB.prepare("SELECT response_body FROM idempotency_keys WHERE key = ?").bind(headers["idempotency-key"]).all();
    expect(JSON.stringify(rows.results)).not.toContain(first.body.secret.slice(6));
  });

  it("shows the secret at GET .../secret", async () => {
    const endpoint = await createEndpoint();
    const res = await api<WebhookEndpointSecret>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/secret`);
    expect(res.body).toEqual({ secret: endpoint.secret, previousSecret: null, previousSecretExpiresAt: null });
  });

  it("rotates with an overlap in which the old secret still signs", async () => {
    const endpoint = await createEndpoint();
    const rotated = await api<WebhookEndpointSecret>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      overlapHours: 2,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(rotated.body.previousSecret).toBe(endpoint.secret);
    const hours = (Date.parse(rotated.body.previousSecretExpiresAt!) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);
    const shown = await api<WebhookEndpointSecret>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/secret`);
    expect(shown.body).toEqual(rotated.body);
  });

  it("rotates with no overlap when asked for 0 hours, and with 24 by default", async () => {
    const endpoint = await createEndpoint();
    const now = await api<WebhookEndpointSecret>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { overlapHours: 0 });
    expect(now.body.previousSecret).toBeNull();
    const byDefault = await api<WebhookEndpointSecret>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.previousSecret).toBe(now.body.secret);
    expect(Date.parse(byDefault.body.previousSecretExpiresAt!) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
  });
});

describe("GET /openapi.json", () => {
  it("documents every event type's request in the webhooks section", async () => {
    const doc = (await api<{ webhooks: Record<string, { post: { requestBody: unknown } }> }>(null, "GET", "/openapi.json")).body;
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(JSON.stringify(doc.webhooks["subscriber.deleted"]!.post.requestBody)).toContain("subscriber.deleted");
  });
});

describe("credentials in endpoint URLs", () => {
  it.each(["https://user:s3cr3t@example.com/hooks", "https://t0ken@example.com/hooks"])(
    "refuses %s with 422 pointing to the signing secret",
    async (url) => {
      const res = await api<{ errors: { path: string; message: string }[] }>(key, "POST", "/v1/webhook-endpoints", { url });
      expectProblem(res, 422, "validation_failed");
      expect(res.body.errors).toEqual([{ path: "url", message: expect.stringContaining("signing secret") }]);
    },
  );

  it("refuses userinfo on update too, and never echoes it", async () => {
    const endpoint = await createEndpoint();
    const res = await api(key, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { url: "https://user:s3cr3t@example.com/hooks" });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["url"]);
    expect(JSON.stringify(res.body)).not.toContain("s3cr3t");
  });

  it.each([
    ["https://user:s3cr3t@example.com/hooks", "https://user:***@example.com/hooks"],
    ["https://t0k3n@example.com/hooks", "https://***@example.com/hooks"],
  ])("never shows the credentials of an endpoint saved with them before they were refused (%s)", async (saved, shown) => {
    const endpoint = await createEndpoint();
    await createDb(env.DB).update(webhookEndpoints).set({ url: saved }).where(eq(webhookEndpoints.id, endpoint.id));
    const one = await api<WebhookEndpoint>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`);
    expect(one.body.url).toBe(shown);
    const list = await api<{ data: WebhookEndpoint[] }>(key, "GET", "/v1/webhook-endpoints?limit=100");
    expect(JSON.stringify(list.body)).not.toMatch(/s3cr3t|t0k3n/);
  });

  it("keeps query values out of the audit log, and their names in it", async () => {
    const endpoint = await createEndpoint({ url: "https://example.com/hooks?token=s3cr3t&team=acme" });
    await api(key, "PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { url: "https://example.com/hooks?token=n3wer&bare0ne" });
    const log = await api<{ data: AuditEntry[] }>(key, "GET", `/v1/audit-log?resource=webhook_endpoint&resourceId=${endpoint.id}`);
    expect(log.body.data.map((e) => e.action)).toEqual(["updated", "created"]);
    const text = JSON.stringify(log.body);
    for (const secret of ["s3cr3t", "acme", "n3wer", "bare0ne"]) expect(text).not.toContain(secret);
    expect(log.body.data[0]!.before).toMatchObject({ url: "https://example.com/hooks?token=***&team=***" });
    expect(log.body.data[0]!.after).toMatchObject({ url: "https://example.com/hooks?token=***&***" });
    // The endpoint itself keeps its URL: the receiver needs its token.
    expect((await api<WebhookEndpoint>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`)).body.url).toBe(
      "https://example.com/hooks?token=n3wer&bare0ne",
    );
  });
});

describe("destination policy of endpoints (strict)", () => {
  it.each([
    "https://localhost../hooks",
    "https://127.0.0.1../hooks",
    "https://kubernetes.default.svc/hooks",
    "https://api.default.svc.cluster.local./hooks",
    "https://metadata.google.internal../hooks",
    "https://hooks..example.com/x",
    "https://example.com:8080/hooks",
    "https://example.com:80/hooks",
  ])("refuses %s", async (url) => {
    const res = await strictApi(key, "POST", "/v1/webhook-endpoints", { url });
    expectProblem(res, 422, "destination_not_allowed");
    expect(errorPaths(res.body)).toEqual(["url"]);
  });

  it.each(["https://example.com:8443/hooks", "https://example.com:443/hooks", "https://hooks.example.com./x"])("takes %s", async (url) => {
    expect((await strictApi(key, "POST", "/v1/webhook-endpoints", { url })).status).toBe(201);
  });

  it("takes any port where private destinations are allowed (local development)", async () => {
    expect((await api(key, "POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:8080/hooks" })).status).toBe(201);
  });
});

describe("endpoints per environment", () => {
  it(`refuses the endpoint past ${DEFAULT_ENDPOINTS_MAX} with 422 limit_reached, and takes one again after a delete`, async () => {
    const { key: own } = await createEnvironment();
    const made: string[] = [];
    for (let i = 0; i < DEFAULT_ENDPOINTS_MAX; i++) made.push((await createEndpoint({ url: `https://example.com/${i}` }, own)).id);
    const refused = await api(own, "POST", "/v1/webhook-endpoints", { url: "https://example.com/one-more" });
    const problem = expectProblem(refused, 422, "limit_reached");
    expect(problem.detail).toContain("WEBHOOK_ENDPOINTS_MAX");
    // Another environment has its own count.
    expect((await api(otherKey, "POST", "/v1/webhook-endpoints", { url: "https://example.com/other" })).status).toBe(201);
    expect((await api(own, "DELETE", `/v1/webhook-endpoints/${made[0]}`)).status).toBe(204);
    expect((await api(own, "POST", "/v1/webhook-endpoints", { url: "https://example.com/one-more" })).status).toBe(201);
  });

  it("reads the cap from WEBHOOK_ENDPOINTS_MAX", () => {
    expect(endpointsMax({ WEBHOOK_ENDPOINTS_MAX: "3" })).toBe(3);
    expect(endpointsMax({ WEBHOOK_ENDPOINTS_MAX: "0" })).toBe(DEFAULT_ENDPOINTS_MAX);
    expect(endpointsMax({ WEBHOOK_ENDPOINTS_MAX: "many" })).toBe(DEFAULT_ENDPOINTS_MAX);
    expect(endpointsMax({})).toBe(DEFAULT_ENDPOINTS_MAX);
  });
});

describe("test and replay rate limit", () => {
  it("answers 429 with Retry-After once an endpoint's tests and replays pass 20 a minute, and counts each endpoint apart", async () => {
    await awayFromWindowEdge();
    const { key: own } = await createEnvironment();
    const endpoint = await createEndpoint({ url: "https://example.com/limited" }, own);
    const other = await createEndpoint({ url: "https://example.com/other" }, own);
    const replay = (id: string) => api(own, "POST", `/v1/webhook-endpoints/${id}/replay`, { since: new Date(0).toISOString() });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await replay(endpoint.id)).status);
    expect(statuses).toEqual(Array(20).fill(202));
    for (const res of [await replay(endpoint.id), await api(own, "POST", `/v1/webhook-endpoints/${endpoint.id}/test`)]) {
      const problem = expectProblem(res, 429, "rate_limited");
      expect(problem.detail).toContain("webhook endpoint");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(res.headers.get("ratelimit-policy")).toBe('"webhook_endpoint";q=20;w=60');
    }
    expect((await replay(other.id)).status).toBe(202);
  });
});
