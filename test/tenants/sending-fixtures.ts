// The set-up the per-tenant sending tests share (test/tenants/sending.test.ts and the e2e failover
// case): an environment with a workflow, tenants acme and globex, and the environment's own
// primary email integration on a fake provider; acme's integration is added by each test.
import { expect } from "vitest";
import { createEnvironment, createIntegration, fakeProviderScenario } from "../factories";
import { createWorkflow } from "../e2e/helpers";
import { api } from "../request";

export const credentials = { apiKey: "re_test_123", from: "Acme <hi@mail.acme.example>" };

export async function setUp(platformSettings: Record<string, unknown> = {}) {
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

export const acmeIntegration = (environmentId: string, baseUrl: string, settings: Record<string, unknown> = {}) =>
  createIntegration(environmentId, { provider: "resend", channel: "email", credentials, baseUrl, tenantId: "acme", settings });
