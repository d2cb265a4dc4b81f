import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { PromotionDiff, PromotionResult } from "../../src/features/promotions/schemas";
import type { Workflow } from "../../src/features/workflows/schemas";
import { createEnvironment, createSandboxEnvironment, workflowBody } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";
import { auditLog } from "../audit/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const SECRET = "sk_live_never_shown_0123456789";
const CREDENTIAL = "re_credential_never_shown_42";

const promote = (body: unknown) => api<PromotionResult>(ADMIN_KEY, "POST", "/v1/admin/promotions", body);
const diff = (from: string, to: string) =>
  api<PromotionDiff>(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);

const email = (subject: string) => [{ id: "mail", type: "email", template: { subject, text: "Hello" } }];

type Env = Awaited<ReturnType<typeof createSandboxEnvironment>>;
let dev: Env;
let prod: Env;
const keys = { added: "", changed: "", same: "", removed: "" };

beforeAll(async () => {
  [dev, prod] = await Promise.all([createSandboxEnvironment(), createSandboxEnvironment()]);
  const make = async (key: string, env: Env, subject: string) =>
    expect((await api(env.key, "POST", "/v1/workflows", workflowBody({ key, steps: email(subject) }))).status).toBe(201);
  keys.added = workflowBody().key;
  keys.changed = workflowBody().key;
  keys.same = workflowBody().key;
  keys.removed = workflowBody().key;
  await make(keys.added, dev, "New in development");
  await make(keys.changed, dev, "Edited in development");
  await make(keys.changed, prod, "As in production");
  await make(keys.same, dev, "Same");
  await make(keys.same, prod, "Same");
  await make(keys.removed, prod, "Only in production");
  for (const body of [
    { key: "API_TOKEN", value: SECRET, secret: true },
    { key: "SUPPORT_EMAIL", value: "help@dev.example", secret: false },
  ]) {
    expect((await api(dev.key, "POST", "/v1/variables", body)).status).toBe(201);
  }
  const integration = await api(dev.key, "POST", "/v1/integrations", {
    provider: "resend",
    name: "Resend (dev)",
    credentials: { apiKey: CREDENTIAL, from: "dev@example.com" },
  });
  expect(integration.status).toBe(201);
});

describe("the promotion routes", () => {
  it("refuse an environment key with 403", async () => {
    expectProblem(await api(dev.key, "GET", `/v1/admin/promotions/diff?from=${dev.slug}&to=${prod.slug}`), 403, "forbidden");
    expectProblem(
      await api(dev.key, "POST", "/v1/admin/promotions", { from: dev.slug, to: prod.slug, workflows: "all" }),
      403,
      "forbidden",
    );
  });

  it("answer 404 for an unknown environment or workflow, and 422 for one environment twice", async () => {
    expectProblem(await diff(dev.slug, "nowhere"), 404, "environment_not_found");
    expectProblem(await promote({ from: dev.slug, to: prod.slug, workflows: ["no-such-workflow"] }), 404, "workflow_not_found");
    expectProblem(await promote({ from: dev.slug, to: dev.slug, workflows: "all" }), 422, "validation_failed");
  });
});

describe("GET /v1/admin/promotions/diff", () => {
  it("lists workflows by status with their patch, variables by key and integrations by name, never a secret", async () => {
    const res = await diff(dev.slug, prod.slug);
    expect(res.status).toBe(200);
    const status = Object.fromEntries(res.body.workflows.map((w) => [w.key, w.status]));
    expect(status).toEqual({ [keys.added]: "added", [keys.changed]: "changed", [keys.same]: "unchanged", [keys.removed]: "removed" });
    const changed = res.body.workflows.find((w) => w.key === keys.changed)!;
    expect(changed.patch).toEqual([{ op: "replace", path: "/steps/0/template/subject", value: "Edited in development" }]);
    expect(res.body.variables).toEqual([
      { key: "API_TOKEN", secret: true, status: "needs_value" },
      { key: "SUPPORT_EMAIL", secret: false, status: "added" },
    ]);
    expect(res.body.integrations).toContainEqual({
      provider: "resend",
      name: "Resend (dev)",
      channel: "email",
      status: "added",
      developmentOnly: false,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(JSON.stringify(res.body)).not.toContain(CREDENTIAL);
  });
});

describe("GET /v1/admin/promotions/diff of sandbox integrations", () => {
  it("marks them development-only, as a real provider is what the target needs", async () => {
    const target = await createEnvironment();
    const res = await diff(dev.slug, target.slug);
    const sandbox = res.body.integrations.filter((i) => i.provider.startsWith("sandbox-"));
    expect(sandbox.map((i) => [i.provider, i.status, i.developmentOnly]).sort()).toEqual([
      ["sandbox-chat", "added", true],
      ["sandbox-email", "added", true],
      ["sandbox-push", "added", true],
      ["sandbox-sms", "added", true],
    ]);
    expect(res.body.integrations.find((i) => i.provider === "resend")?.developmentOnly).toBe(false);
  });
});

describe("POST /v1/admin/promotions", () => {
  it("answers in a dry run exactly what the real run then does, and the promoted workflow sends its new content", async () => {
    const [source, target] = await Promise.all([createSandboxEnvironment(), createSandboxEnvironment()]);
    const key = workflowBody().key;
    const fresh = workflowBody().key;
    expect((await api(source.key, "POST", "/v1/workflows", workflowBody({ key, steps: email("Promoted subject") }))).status).toBe(201);
    expect((await api(source.key, "POST", "/v1/workflows", workflowBody({ key: fresh, steps: email("Brand new") }))).status).toBe(201);
    expect((await api(target.key, "POST", "/v1/workflows", workflowBody({ key, steps: email("Old subject") }))).status).toBe(201);
    expect((await api(source.key, "POST", "/v1/variables", { key: "TOKEN", value: SECRET, secret: true })).status).toBe(201);

    const body = { from: source.slug, to: target.slug, workflows: "all" };
    const dry = await promote({ ...body, dryRun: true });
    expect(dry.status).toBe(200);
    expect((await api<Workflow>(target.key, "GET", `/v1/workflows/${key}`)).body.version).toBe(1);
    const real = await promote(body);
    expect(real.status).toBe(200);
    expect({ ...dry.body, dryRun: false }).toEqual(real.body);
    expect(real.body.workflows.map((w) => [w.key, w.outcome, w.version]).sort()).toEqual(
      [
        [key, "updated", 2],
        [fresh, "created", 1],
      ].sort(),
    );
    expect(real.body.needsValue).toEqual(["TOKEN"]);
    expect(JSON.stringify([dry.body, real.body])).not.toContain(SECRET);

    const versions = await api<{ data: { version: number; author: { name: string } }[] }>(
      target.key,
      "GET",
      `/v1/workflows/${key}/versions`,
    );
    expect(versions.body.data[0]).toMatchObject({ version: 2, author: { name: `promotion from ${source.slug}` } });

    const tx = await triggerDelivered(target.key, { workflow: key, to: { subscriberId: "ada", email: "ada@example.com" } });
    const [message] = await deliveredMessages(target.key, tx, 1);
    expect(message).toMatchObject({ subject: "Promoted subject", workflowVersion: 2 });

    // Promoting again changes nothing, and says so.
    const again = await promote(body);
    expect(again.body.workflows.every((w) => w.outcome === "unchanged")).toBe(true);

    const audit = await auditLog(target.key, "action=promoted");
    expect(audit.body.data.map((e) => [e.resource, e.resourceId])).toEqual(
      expect.arrayContaining([
        ["promotion", `${source.slug}:${target.slug}`],
        ["workflow", key],
        ["workflow", fresh],
      ]),
    );
    expect(audit.body.data.find((e) => e.resourceId === key)?.actor).toEqual({ type: "admin", id: null, name: "admin" });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
  });

  it("logs the promotion in the source environment too, with a summary of what it did", async () => {
    const [source, target] = await Promise.all([createSandboxEnvironment(), createSandboxEnvironment()]);
    const key = workflowBody().key;
    expect((await api(source.key, "POST", "/v1/workflows", workflowBody({ key, steps: email("Promoted") }))).status).toBe(201);
    expect((await promote({ from: source.slug, to: target.slug, workflows: "all" })).status).toBe(200);

    const summary = `From ${source.slug} to ${target.slug}: "${key}" created`;
    for (const environment of [source, target]) {
      const entries = (await auditLog(environment.key, "resource=promotion")).body.data;
      expect(entries.map((e) => ({ environment: e.environment, resourceId: e.resourceId, action: e.action, summary: e.summary }))).toEqual([
        { environment: environment.slug, resourceId: `${source.slug}:${target.slug}`, action: "promoted", summary },
      ]);
    }
    // The promoted workflow's own entry stays in the target only.
    expect((await auditLog(source.key, `resource=workflow&resourceId=${key}&action=promoted`)).body.data).toEqual([]);
    expect((await auditLog(target.key, `resource=workflow&resourceId=${key}&action=promoted`)).body.data).toHaveLength(1);
  });

  it("promotes only the workflows named", async () => {
    const res = await promote({ from: dev.slug, to: prod.slug, workflows: [keys.same], dryRun: true });
    expect(res.body.workflows).toEqual([{ key: keys.same, outcome: "unchanged", version: 1, patch: [] }]);
  });
});

describe("fuzzed promotion input", () => {
  it("never answers 5xx", async () => {
    const slug = fc.oneof(fc.constant(dev.slug), fc.constant(prod.slug), fc.string({ maxLength: 80 }));
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 70 })), fc.object());
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            from: fc.oneof(slug, value),
            to: fc.oneof(slug, value),
            workflows: fc.oneof(fc.constant("all"), value),
            dryRun: fc.oneof(fc.constant(true), value),
          },
          { requiredKeys: [] },
        ),
        fc.string({ maxLength: 80 }),
        async (body, query) => {
          const posted = await promote({ ...body, dryRun: true });
          expect(posted.status).toBeLessThan(500);
          const read = await api(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${encodeURIComponent(query)}&to=${prod.slug}`);
          expect(read.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  });
});
