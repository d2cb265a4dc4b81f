import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { webhookEndpoints } from "../../src/db/schema";
import type {
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointSecret,
} from "../../src/features/webhook-endpoints/schemas";
import { EVENT_TYPES } from "../../src/contract/event-types";
import { createEnvironment } from "../factories";
import { api, errorPaths, expectProblem } from "../request";
import { strictApi } from "../strict-api";

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
