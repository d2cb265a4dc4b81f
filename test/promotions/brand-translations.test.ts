import { describe, expect, it } from "vitest";
import type { PromotionDiff, PromotionResult } from "../../src/features/promotions/schemas";
import { createSandboxEnvironment, workflowBody } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";
import { auditLog } from "../audit/helpers";

const promote = (body: unknown) => api<PromotionResult>(ADMIN_KEY, "POST", "/v1/admin/promotions", body);
const diff = (from: string, to: string) => api<PromotionDiff>(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${from}&to=${to}`);

const colors = { primary: "#aa0000", background: "#ffffff", text: "#000000", link: "#0000ee" };
const welcome = (key: string) =>
  workflowBody({ key, steps: [{ id: "m", type: "email", template: { subject: '{{ "welcome.subject" | t }}', text: "x" } }] });

describe("promoting the brand and translations", () => {
  it("diffs them, refuses a workflow whose t keys the target lacks, and promotes them with it", async () => {
    const [dev, prod] = await Promise.all([createSandboxEnvironment(), createSandboxEnvironment()]);
    await api(dev.key, "PUT", "/v1/brand", { name: "Acme", logoUrl: null, colors });
    await api(dev.key, "PUT", "/v1/translations/en", { keys: { welcome: { subject: "Welcome" } } });
    await api(dev.key, "PUT", "/v1/translations/fr", { keys: { welcome: { subject: "Bienvenue" } } });
    await api(prod.key, "PUT", "/v1/translations/fr", { keys: { welcome: { subject: "Salut" } } });
    const body = welcome("welcome");
    expect((await api(dev.key, "POST", "/v1/workflows", body)).status).toBe(201);

    const before = await diff(dev.slug, prod.slug);
    expect(before.body.brand.status).toBe("added");
    expect(before.body.brand.patch).toContainEqual({ op: "add", path: "/name", value: "Acme" });
    expect(before.body.translations).toEqual([
      { locale: "en", status: "added", patch: [{ op: "add", path: "/welcome.subject", value: "Welcome" }] },
      { locale: "fr", status: "changed", patch: [{ op: "replace", path: "/welcome.subject", value: "Bienvenue" }] },
    ]);

    // Without its texts the workflow would render its key: refused, in the dry run too, and nothing lands.
    for (const dryRun of [true, false]) {
      const problem = expectProblem(
        await promote({ from: dev.slug, to: prod.slug, workflows: ["welcome"], dryRun }),
        422,
        "translation_key_missing",
      );
      expect(problem.errors).toEqual([{ path: "welcome.steps.0.template.subject", message: expect.stringContaining('"welcome.subject"') }]);
    }
    expect((await api(prod.key, "GET", "/v1/workflows/welcome")).status).toBe(404);

    const input = { from: dev.slug, to: prod.slug, workflows: ["welcome"], brand: true, translations: ["en"] };
    const dry = await promote({ ...input, dryRun: true });
    expect(dry.body).toMatchObject({
      dryRun: true,
      brand: { outcome: "created", version: 1 },
      translations: [{ locale: "en", outcome: "created", version: 1 }],
    });
    const done = await promote(input);
    expect(done.body).toMatchObject({
      dryRun: false,
      brand: { outcome: "created", version: 1 },
      translations: [{ locale: "en", outcome: "created", version: 1 }],
    });
    expect((await api(prod.key, "GET", "/v1/brand")).body).toMatchObject({ name: "Acme", colors, version: 1 });
    expect((await api(prod.key, "GET", "/v1/translations/en")).body).toMatchObject({ keys: { welcome: { subject: "Welcome" } } });
    // fr was not asked for: the target keeps its own.
    expect((await api(prod.key, "GET", "/v1/translations/fr")).body).toMatchObject({ keys: { welcome: { subject: "Salut" } } });
    expect((await api(prod.key, "GET", "/v1/workflows/welcome")).status).toBe(200);

    const entries = (await auditLog(prod.key)).body.data.map((e) => [e.resource, e.action]);
    expect(entries).toEqual(
      expect.arrayContaining([
        ["brand", "promoted"],
        ["translation", "promoted"],
        ["workflow", "promoted"],
      ]),
    );
    const versions = await api<{ data: { author: { name: string } }[] }>(prod.key, "GET", "/v1/brand/versions");
    expect(versions.body.data[0]!.author.name).toBe(`promotion from ${dev.slug}`);

    const after = await diff(dev.slug, prod.slug);
    expect(after.body.brand.status).toBe("unchanged");
    expect(after.body.translations.map((t) => [t.locale, t.status])).toEqual([
      ["en", "unchanged"],
      ["fr", "changed"],
    ]);
  });

  it("answers 404 for a locale the source lacks", async () => {
    const [dev, prod] = await Promise.all([createSandboxEnvironment(), createSandboxEnvironment()]);
    expectProblem(await promote({ from: dev.slug, to: prod.slug, workflows: [], translations: ["de"] }), 404, "translation_not_found");
  });
});
