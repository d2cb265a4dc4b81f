// Per-tenant sending's failover: the tenant's integration fails its one attempt and the retry, a
// later Queue delivery, goes through the environment's. End to end through the real Queue (its
// retry waits for the backoff), so it settles by polling like the other e2e failover tests.
import { describe, expect, it } from "vitest";
import { api } from "../request";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { createWorkflow, settledMessages, trigger } from "./helpers";

const credentials = { apiKey: "re_test_123", from: "Acme <hi@mail.acme.example>" };

async function setUp(platformSettings: Record<string, unknown> = {}) {
  const environment = await createEnvironment();
  await createWorkflow(environment.key, {
    key: "receipt",
    steps: [{ id: "mail", type: "email", template: { subject: "Receipt", text: "Thanks" } }],
  });
  for (const id of ["acme", "globex"]) expect((await api(environment.key, "POST", "/v1/tenants", { id, name: id })).status).toBe(201);
  const platform = fakeProviderScenario();
  const acme = fakeProviderScenario();
  const platformId = await createIntegration(environment.id, {
    provider: "resend",
    channel: "email",
    credentials,
    baseUrl: platform.baseUrl,
    primary: true,
    settings: platformSettings,
  });
  return { ...environment, platform, acme, platformId };
}

const acmeIntegration = (environmentId: string, baseUrl: string, settings: Record<string, unknown> = {}) =>
  createIntegration(environmentId, { provider: "resend", channel: "email", credentials, baseUrl, tenantId: "acme", settings });

const send = (key: string, tenant?: string) =>
  trigger(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "u@example.com" }, ...(tenant ? { tenant } : {}) });

describe("a message for a tenant", () => {
  it("fails over to the environment's integrations once the tenant's have had their attempts", async () => {
    const { id, key, platform, platformId, acme } = await setUp();
    await acme.script([{ status: 503, body: "unavailable" }]);
    await platform.script([{ status: 200, body: { id: "re-platform-1" } }]);
    await acmeIntegration(id, acme.baseUrl, { maxAttempts: 1 });

    const [message] = await settledMessages(key, await send(key, "acme"), 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-platform-1", integrationId: platformId, attempts: 2 });
    expect(await acme.captured()).toHaveLength(1);
    expect(await platform.captured()).toHaveLength(1);
  });
});
