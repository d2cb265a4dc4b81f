import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Integration as IntegrationView } from "../../src/features/integrations/schemas";
import { decryptJson, integrationAad } from "../../src/lib/secrets";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { api, errorPaths, expectProblem, type ApiResponse } from "../request";
import { byStep, createWorkflow } from "../e2e/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const API_KEY = "re_live_9f8e7d6c5b4a3210";
const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const resendBody = (overrides: Record<string, unknown> = {}) => ({
  provider: "resend",
  credentials: { apiKey: API_KEY, from: "Acme <hi@acme.dev>", webhookSecret: WEBHOOK_SECRET },
  ...overrides,
});

/** The clear secrets must not appear in any answer, whatever its shape. */
function expectNoSecrets(res: ApiResponse<unknown>) {
  const text = JSON.stringify(res.body ?? "");
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(WEBHOOK_SECRET);
  expect(text).not.toContain(API_KEY.slice(4));
}

async function create(key: string, body: Record<string, unknown> = resendBody()) {
  const res = await api<IntegrationView>(key, "POST", "/v1/integrations", body);
  expectNoSecrets(res);
  if (res.status !== 201) throw new Error(`integration not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The stored credentials decrypted for their own row. */
const decryptRow = (row: { credentials: string; environment_id: string }, id: string) =>
  decryptJson(env.ENCRYPTION_KEY, row.credentials, integrationAad(row.environment_id, id));

const storedRow = (id: string) =>
  env.DB.prepare("SELECT credentials, environment_id FROM integrations WHERE id = ?")
    .bind(id)
    .first<{ credentials: string; environment_id: string }>();

describe("POST /v1/integrations", () => {
  it("creates an integration with defaults, the provider's channel and its secrets masked", async () => {
    const { key } = await createEnvironment();
    const res = await api<IntegrationView>(key, "POST", "/v1/integrations", resendBody());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^int_/),
      provider: "resend",
      channel: "email",
      name: "resend",
      active: true,
      primary: false,
      priority: 0,
      credentials: { apiKey: "re_l••••", from: "Acme <hi@acme.dev>", webhookSecret: "whse••••" },
      settings: {},
      baseUrl: null,
      tenantId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expectNoSecrets(res);
  });

  it("masks a short string entirely and leaves numbers and booleans alone", async () => {
    const { key } = await createEnvironment();
    const created = await create(key, {
      provider: "sandbox-sms",
      credentials: { pin: "12345", nested: { token: "abcdefghijklmnop", n: 3, on: true } },
    });
    expect(created.credentials).toEqual({ pin: "••••", nested: { token: "abcd••••", n: 3, on: true } });
  });

  it("stores the credentials encrypted, and the ciphertext decrypts to them", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const created = await create(key);
    const row = await storedRow(created.id);
    expect(row?.environment_id).toBe(environmentId);
    expect(row!.credentials).toMatch(/^v2\./);
    expect(row!.credentials).not.toContain(API_KEY);
    expect(row!.credentials).not.toContain("acme.dev");
    expect(await decryptRow(row!, created.id)).toEqual(resendBody().credentials);
  });

  it("keeps name, priority, settings and baseUrl as given", async () => {
    const { key } = await createEnvironment();
    const created = await create(
      key,
      resendBody({
        name: "Resend EU",
        priority: 2,
        active: false,
        settings: { timeoutMs: 5000, maxAttempts: 2, region: "eu" },
        baseUrl: "https://eu.example.com/resend",
      }),
    );
    expect(created).toMatchObject({
      name: "Resend EU",
      priority: 2,
      active: false,
      settings: { timeoutMs: 5000, maxAttempts: 2, region: "eu" },
      baseUrl: "https://eu.example.com/resend",
    });
  });

  it("refuses an unknown provider on `provider`", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/integrations", { provider: "carrier-pigeon", credentials: {} });
    const problem = expectProblem(res, 422, "validation_failed");
    expect(errorPaths(problem)).toEqual(["provider"]);
  });

  it("words a missing or empty credential as Required, not in the validator's terms", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/integrations", resendBody({ credentials: { apiKey: "" } }));
    const problem = expectProblem(res, 422, "validation_failed");
    expect(problem.errors).toEqual([
      { path: "credentials.apiKey", message: "Required" },
      { path: "credentials.from", message: "Required" },
    ]);
  });

  it.each([
    ["a missing apiKey", { credentials: { from: "Acme <hi@acme.dev>" } }, ["credentials.apiKey"]],
    ["an empty apiKey and a short from", { credentials: { apiKey: "", from: "a" } }, ["credentials.apiKey", "credentials.from"]],
    [
      "a webhook secret without whsec_",
      { credentials: { apiKey: API_KEY, from: "Acme <hi@acme.dev>", webhookSecret: "nope" } },
      ["credentials.webhookSecret"],
    ],
    ["credentials that are not an object", { credentials: "re_123" }, ["credentials"]],
    ["a baseUrl that is not http(s)", { baseUrl: "ftp://files.example.com" }, ["baseUrl"]],
    ["a fractional priority", { priority: 1.5 }, ["priority"]],
    ["zero attempts", { settings: { maxAttempts: 0 } }, ["settings.maxAttempts"]],
    ["an unknown field", { colour: "red" }, ["(root)"]],
  ])("refuses %s with its field path", async (_, overrides, paths) => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/integrations", resendBody(overrides));
    const problem = expectProblem(res, 422, "validation_failed");
    expect(errorPaths(problem)).toEqual(paths);
    expectNoSecrets(res);
  });
});

describe("GET /v1/integrations", () => {
  it("lists the environment's integrations masked, filtered by channel, a page at a time", async () => {
    const { key } = await createEnvironment();
    const first = await create(key);
    const second = await create(key, resendBody({ name: "second" }));
    const sms = await create(key, { provider: "sandbox-sms", credentials: {} });

    const page1 = await api<{ data: IntegrationView[]; nextCursor: string | null }>(key, "GET", "/v1/integrations?limit=2");
    expect(page1.status).toBe(200);
    expectNoSecrets(page1);
    expect(page1.body.data.map((i) => i.id)).toEqual([first.id, second.id]);
    expect(page1.body.data[0]!.credentials.apiKey).toBe("re_l••••");
    const page2 = await api<{ data: IntegrationView[]; nextCursor: string | null }>(
      key,
      "GET",
      `/v1/integrations?limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: sms.id, channel: "sms" })], nextCursor: null });

    const email = await api<{ data: IntegrationView[] }>(key, "GET", "/v1/integrations?channel=email");
    expect(email.body.data.map((i) => i.id)).toEqual([first.id, second.id]);
    expectNoSecrets(email);
  });

  it("refuses an unknown channel filter", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "GET", "/v1/integrations?channel=fax");
    expect(errorPaths(expectProblem(res, 422, "validation_failed"))).toEqual(["channel"]);
  });

  it("reads one integration masked, and 404s an unknown id", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api<IntegrationView>(key, "GET", `/v1/integrations/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expectNoSecrets(res);
    expectProblem(await api(key, "GET", "/v1/integrations/int_nope"), 404, "integration_not_found");
  });
});

describe("PUT /v1/integrations/{id}", () => {
  it("changes the given fields and keeps the credentials when they are left out", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api<IntegrationView>(key, "PUT", `/v1/integrations/${created.id}`, {
      name: "Renamed",
      active: false,
      priority: 5,
      settings: { maxAttempts: 1 },
    });
    expect(res.status).toBe(200);
    expectNoSecrets(res);
    expect(res.body).toMatchObject({
      name: "Renamed",
      active: false,
      priority: 5,
      settings: { maxAttempts: 1 },
      credentials: created.credentials,
    });
    expect(await decryptRow((await storedRow(created.id))!, created.id)).toEqual(resendBody().credentials);
  });

  it("validates and re-encrypts new credentials", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const before = (await storedRow(created.id))!.credentials;
    const fresh = { apiKey: "re_live_rotated_000000", from: "Billing <billing@acme.dev>" };
    const res = await api<IntegrationView>(key, "PUT", `/v1/integrations/${created.id}`, { credentials: fresh });
    expect(res.status).toBe(200);
    expect(res.body.credentials).toEqual({ apiKey: "re_l••••", from: "Billing <billing@acme.dev>" });
    expect(JSON.stringify(res.body)).not.toContain("rotated");
    const after = (await storedRow(created.id))!;
    expect(after.credentials).not.toBe(before);
    expect(await decryptRow(after, created.id)).toEqual(fresh);
  });

  it("refuses credentials that do not fit the provider, with their paths, and changes nothing", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api(key, "PUT", `/v1/integrations/${created.id}`, { name: "x", credentials: { apiKey: API_KEY } });
    expect(errorPaths(expectProblem(res, 422, "validation_failed"))).toEqual(["credentials.from"]);
    expectNoSecrets(res);
    expect((await api<IntegrationView>(key, "GET", `/v1/integrations/${created.id}`)).body.name).toBe("resend");
  });

  it("keeps a stored value that comes back exactly as it was masked", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api<IntegrationView>(key, "PUT", `/v1/integrations/${created.id}`, {
      credentials: { ...created.credentials, from: "Support <support@acme.dev>" },
    });
    expect(res.status).toBe(200);
    expect(await decryptRow((await storedRow(created.id))!, created.id)).toEqual({
      apiKey: API_KEY,
      from: "Support <support@acme.dev>",
      webhookSecret: WEBHOOK_SECRET,
    });
  });

  it("needs the credentials in full to point baseUrl at a new host", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const path = `/v1/integrations/${created.id}`;
    expectProblem(await api(key, "PUT", path, { baseUrl: "https://attacker.example" }), 422, "secret_requires_resupply");
    expectProblem(
      await api(key, "PUT", path, { baseUrl: "https://attacker.example", credentials: created.credentials }),
      422,
      "secret_requires_resupply",
    );
    expect((await api<IntegrationView>(key, "GET", path)).body.baseUrl).toBeNull();
    const res = await api<IntegrationView>(key, "PUT", path, { baseUrl: "https://proxy.example", credentials: resendBody().credentials });
    expect(res.body.baseUrl).toBe("https://proxy.example");
    expectNoSecrets(res);
  });

  it("refuses a change of provider and 404s an unknown id", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    expectProblem(await api(key, "PUT", `/v1/integrations/${created.id}`, { provider: "sandbox-email" }), 422, "validation_failed");
    expectProblem(await api(key, "PUT", "/v1/integrations/int_nope", { name: "x" }), 404, "integration_not_found");
  });
});

describe("primary integrations", () => {
  const primaries = async (key: string) =>
    (await api<{ data: IntegrationView[] }>(key, "GET", "/v1/integrations")).body.data.filter((i) => i.primary).map((i) => i.id);

  it("keeps one primary per channel: setting it on one clears the others of that channel only", async () => {
    const { key } = await createEnvironment();
    const a = await create(key, resendBody({ primary: true }));
    const sms = await create(key, { provider: "sandbox-sms", credentials: {}, primary: true });
    const b = await create(key, resendBody({ primary: true }));
    expect(await primaries(key)).toEqual([sms.id, b.id]);

    const res = await api<IntegrationView>(key, "PUT", `/v1/integrations/${a.id}`, { primary: true });
    expect(res.body.primary).toBe(true);
    expect(await primaries(key)).toEqual([a.id, sms.id]);

    await api(key, "PUT", `/v1/integrations/${a.id}`, { primary: false });
    expect(await primaries(key)).toEqual([sms.id]);
  });

  it("leaves another environment's primary alone", async () => {
    const one = await createEnvironment();
    const two = await createEnvironment();
    const theirs = await create(two.key, resendBody({ primary: true }));
    await create(one.key, resendBody({ primary: true }));
    expect(await primaries(two.key)).toEqual([theirs.id]);
  });
});

describe("DELETE /v1/integrations/{id}", () => {
  it("deletes an integration", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api(key, "DELETE", `/v1/integrations/${created.id}`);
    expect(res.status).toBe(204);
    expectProblem(await api(key, "GET", `/v1/integrations/${created.id}`), 404, "integration_not_found");
    expectProblem(await api(key, "DELETE", `/v1/integrations/${created.id}`), 404, "integration_not_found");
  });
});

describe("isolation between environments", () => {
  it("never shows, changes, checks or deletes another environment's integration", async () => {
    const owner = await createEnvironment();
    const other = await createEnvironment();
    const created = await create(owner.key);
    const path = `/v1/integrations/${created.id}`;
    expectProblem(await api(other.key, "GET", path), 404, "integration_not_found");
    expectProblem(await api(other.key, "PUT", path, { name: "mine" }), 404, "integration_not_found");
    expectProblem(await api(other.key, "POST", `${path}/check`), 404, "integration_not_found");
    expectProblem(await api(other.key, "DELETE", path), 404, "integration_not_found");
    expect((await api<{ data: IntegrationView[] }>(other.key, "GET", "/v1/integrations")).body.data).toEqual([]);
    expect((await api<IntegrationView>(owner.key, "GET", path)).body.name).toBe("resend");
  });
});

describe("POST /v1/integrations/{id}/check", () => {
  it("validates the credentials' form when the provider has no remote check", async () => {
    const { key } = await createEnvironment();
    const created = await create(key);
    const res = await api<{ ok: boolean; mode: string; detail: string }>(key, "POST", `/v1/integrations/${created.id}/check`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "form", detail: expect.any(String) });
    expectNoSecrets(res);
  });

  it("reports stored credentials that no longer fit the provider's form", async () => {
    const { id, key } = await createEnvironment();
    const integrationId = await createIntegration(id, { provider: "resend", channel: "email", credentials: { apiKey: API_KEY } });
    const res = await api<{ ok: boolean; mode: string; detail: string }>(key, "POST", `/v1/integrations/${integrationId}/check`);
    expect(res.body).toMatchObject({ ok: false, mode: "form", detail: expect.stringContaining("credentials.from") });
    expectNoSecrets(res);
  });
});

describe("GET /v1/providers", () => {
  /** A provider with its credentials' JSON Schema read as far as these tests look into it. */
  interface ProviderView {
    id: string;
    channel: string;
    credentials: { type?: string; properties?: Record<string, { description?: string }>; required?: string[] };
  }

  it("lists every registered provider with the JSON Schema of its credentials", async () => {
    const { key } = await createEnvironment();
    const res = await api<{ data: ProviderView[] }>(key, "GET", "/v1/providers");
    expect(res.status).toBe(200);
    const byId = new Map(res.body.data.map((p) => [p.id, p]));
    expect(byId.get("sandbox-email")).toEqual({
      id: "sandbox-email",
      channel: "email",
      credentials: expect.objectContaining({ type: "object" }),
    });
    const resend = byId.get("resend")!;
    expect(resend.channel).toBe("email");
    expect(resend.credentials).toMatchObject({ type: "object", required: expect.arrayContaining(["apiKey", "from"]) });
    expect(Object.keys(resend.credentials.properties ?? {})).toEqual(expect.arrayContaining(["apiKey", "from", "webhookSecret"]));
    expect(resend.credentials.properties?.from?.description).toContain("sender");
    expect(res.body.data.every((p) => ["email", "sms", "push", "chat"].includes(p.channel) && p.credentials.type === "object")).toBe(true);
  });

  it("filters by channel", async () => {
    const { key } = await createEnvironment();
    const res = await api<{ data: ProviderView[] }>(key, "GET", "/v1/providers?channel=sms");
    expect(res.body.data.map((p) => p.id)).toContain("sandbox-sms");
    expect(res.body.data.every((p) => p.channel === "sms")).toBe(true);
  });

  it("appears with the integrations endpoints in /openapi.json", async () => {
    const res = await api<{ paths: Record<string, unknown> }>(null, "GET", "/openapi.json");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/v1/providers", "/v1/integrations", "/v1/integrations/{id}", "/v1/integrations/{id}/check"]),
    );
  });
});

describe("an integration created through the API", () => {
  it("sends a workflow's email through its provider at its baseUrl", async () => {
    const { key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([{ status: 200, body: { id: "re-api-1" } }]);
    await create(key, resendBody({ baseUrl: scenario.baseUrl, primary: true }));
    const workflowKey = unique("welcome").toLowerCase();
    await createWorkflow(key, {
      key: workflowKey,
      steps: [{ id: "mail", type: "email", template: { subject: "Welcome {{ payload.name }}", text: "Hi" } }],
    });

    const transactionId = await triggerDelivered(key, {
      workflow: workflowKey,
      to: { subscriberId: unique("s"), email: "new@example.com" },
      payload: { name: "Ada" },
    });
    const messages = await deliveredMessages(key, transactionId, 1);
    expect(byStep(messages, "mail")).toMatchObject({ status: "sent", provider: "resend", providerMessageId: "re-api-1" });

    const [call] = await scenario.captured();
    expect(call).toMatchObject({ method: "POST", path: "/emails" });
    expect(call!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(call!.body)).toMatchObject({
      from: "Acme <hi@acme.dev>",
      to: ["new@example.com"],
      subject: "Welcome Ada",
      text: "Hi",
    });
  });
});
