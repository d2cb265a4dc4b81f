// Per-tenant sending: a tenant's integrations go first for its messages, then the environment's,
// and never carry another tenant's message or one without a tenant. The providers are the local
// fake servers the suite scripts, so each call is counted where it landed.
import { describe, expect, it } from "vitest";
import type { Integration, IntegrationList } from "../../src/features/integrations/schemas";
import type { Problem } from "../../src/lib/errors";
import type { PromotionDiff } from "../../src/features/promotions/schemas";
import { ADMIN_KEY, api } from "../request";
import { createEnvironment, fakeProviderScenario, unique } from "../factories";
import { createWorkflow } from "../e2e/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { acmeIntegration, setUp } from "./sending-fixtures";

/** Accepts the trigger and delivers it now (test/held-triggers.ts), answering its transactionId. */
const send = (key: string, tenant?: string) =>
  triggerDelivered(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "u@example.com" }, ...(tenant ? { tenant } : {}) });

describe("a message for a tenant", () => {
  it("goes through the tenant's own integration before the environment's, and says which", async () => {
    const { id, key, platform, acme } = await setUp();
    await acme.script([{ status: 200, body: { id: "re-acme-1" } }]);
    const acmeId = await acmeIntegration(id, acme.baseUrl);

    const [message] = await deliveredMessages(key, await send(key, "acme"), 1);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-acme-1", integrationId: acmeId, tenant: "acme" });
    expect(await acme.captured()).toHaveLength(1);
    expect(await platform.captured()).toHaveLength(0);
  });

  // The environment's integration fails: a tenant's, next in no chain of these messages, is not tried either.
  it("never goes through another tenant's integration", async () => {
    const { id, key, platform, platformId, acme } = await setUp({ maxAttempts: 1 });
    await platform.script([{ status: 503, body: "unavailable" }]);
    await acmeIntegration(id, acme.baseUrl);

    const [message] = await deliveredMessages(key, await send(key, "globex"), 1);
    expect(message).toMatchObject({ status: "failed", integrationId: platformId, tenant: "globex", attempts: 1 });
    expect(await acme.captured()).toHaveLength(0);
  });

  it("without a tenant never goes through a tenant's integration", async () => {
    const { id, key, platform, platformId, acme } = await setUp({ maxAttempts: 1 });
    await platform.script([{ status: 503, body: "unavailable" }]);
    await acmeIntegration(id, acme.baseUrl);

    const [message] = await deliveredMessages(key, await send(key), 1);
    expect(message).toMatchObject({ status: "failed", integrationId: platformId, tenant: null, attempts: 1 });
    expect(await acme.captured()).toHaveLength(0);
  });

  it("fails with no_integration when only another tenant has an integration for the channel", async () => {
    const environment = await createEnvironment();
    await createWorkflow(environment.key, {
      key: "receipt",
      steps: [{ id: "mail", type: "email", template: { subject: "R", text: "T" } }],
    });
    await api(environment.key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const acme = fakeProviderScenario();
    await acmeIntegration(environment.id, acme.baseUrl);

    const [message] = await deliveredMessages(environment.key, await send(environment.key), 1);
    expect(message).toMatchObject({ status: "failed", error: { code: "no_integration" } });
    expect(await acme.captured()).toHaveLength(0);
  });
});

describe("tenantId on /v1/integrations", () => {
  const body = (tenantId?: string | null) => ({
    provider: "resend",
    credentials: { apiKey: "re_live_123456", from: "Acme <hi@mail.acme.example>" },
    ...(tenantId !== undefined ? { tenantId } : {}),
  });

  it("creates a tenant's integration, lists it by tenant, and refuses an unknown tenant with 422", async () => {
    const { key } = await createEnvironment();
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const created = await api<Integration>(key, "POST", "/v1/integrations", body("acme"));
    expect(created.status).toBe(201);
    expect(created.body.tenantId).toBe("acme");
    const mine = await api<Integration>(key, "POST", "/v1/integrations", body());
    expect(mine.body.tenantId).toBeNull();

    const listed = await api<IntegrationList>(key, "GET", "/v1/integrations?tenant=acme");
    expect(listed.body.data.map((i) => i.id)).toEqual([created.body.id]);

    const unknown = await api<Problem>(key, "POST", "/v1/integrations", body("initech"));
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: "validation_failed", errors: [{ path: "tenantId" }] });
    const moved = await api<Problem>(key, "PUT", `/v1/integrations/${mine.body.id}`, { tenantId: "initech" });
    expect(moved.status).toBe(422);
    // Given back to the environment.
    const back = await api<Integration>(key, "PUT", `/v1/integrations/${created.body.id}`, { tenantId: null });
    expect(back.body.tenantId).toBeNull();
  });

  it("keeps one primary per owner: a tenant's primary leaves the environment's alone", async () => {
    const { key } = await createEnvironment();
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const environmentPrimary = await api<Integration>(key, "POST", "/v1/integrations", { ...body(), primary: true });
    await api(key, "POST", "/v1/integrations", { ...body("acme"), primary: true });
    const after = await api<Integration>(key, "GET", `/v1/integrations/${environmentPrimary.body.id}`);
    expect(after.body.primary).toBe(true);
  });

  it("is removed with its tenant", async () => {
    const { key } = await createEnvironment();
    await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const created = await api<Integration>(key, "POST", "/v1/integrations", body("acme"));
    const kept = await api<Integration>(key, "POST", "/v1/integrations", body());
    expect((await api(key, "DELETE", "/v1/tenants/acme")).status).toBe(204);
    expect((await api(key, "GET", `/v1/integrations/${created.body.id}`)).status).toBe(404);
    expect((await api(key, "GET", `/v1/integrations/${kept.body.id}`)).status).toBe(200);
  });
});

describe("a promotion", () => {
  it("leaves a tenant's integrations out of its diff, as it leaves the tenant", async () => {
    const [source, target] = await Promise.all([createEnvironment(), createEnvironment()]);
    await api(source.key, "POST", "/v1/tenants", { id: "acme", name: "Acme" });
    const mine = await api<Integration>(source.key, "POST", "/v1/integrations", {
      provider: "resend",
      name: "Platform",
      credentials: { apiKey: "re_live_123456", from: "P <p@platform.example>" },
    });
    await api(source.key, "POST", "/v1/integrations", {
      provider: "resend",
      name: "Acme's own",
      tenantId: "acme",
      credentials: { apiKey: "re_live_654321", from: "A <a@mail.acme.example>" },
    });
    const diff = await api<PromotionDiff>(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${source.slug}&to=${target.slug}`);
    expect(diff.status).toBe(200);
    expect(diff.body.integrations.map((i) => i.name)).toEqual([mine.body.name]);
  });
});
