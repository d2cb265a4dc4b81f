import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PromotionDiff, PromotionResult } from "../../src/features/promotions/schemas";
import { createEnvironment } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";

const promote = (body: unknown) => api<PromotionResult>(ADMIN_KEY, "POST", "/v1/admin/promotions", body);

const framed = {
  key: "framed",
  name: "Framed",
  steps: [{ id: "mail", type: "email", layout: "frame", template: { subject: "s", html: '<p>x</p>{% render "sig" %}' } }],
};

async function source() {
  const env = await createEnvironment();
  expect((await api(env.key, "POST", "/v1/partials", { key: "sig", name: "Sig", content: "-- us", type: "html" })).status).toBe(201);
  expect((await api(env.key, "POST", "/v1/layouts", { key: "frame", name: "Frame", html: "<main>{{ content }}</main>" })).status).toBe(201);
  expect((await api(env.key, "POST", "/v1/workflows", framed)).status).toBe(201);
  return env;
}

describe("promotion with layouts and partials", () => {
  it("lists layouts and partials in the diff", async () => {
    const [from, to] = [await source(), await createEnvironment()];
    const diff = await api<PromotionDiff>(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${from.slug}&to=${to.slug}`);
    expect(diff.body.layouts).toEqual([
      { key: "frame", status: "added", patch: expect.arrayContaining([{ op: "add", path: "/html", value: "<main>{{ content }}</main>" }]) },
    ]);
    expect(diff.body.partials).toEqual([
      { key: "sig", status: "added", patch: expect.arrayContaining([{ op: "add", path: "/content", value: "-- us" }]) },
    ]);
  });

  it("moves a workflow with its layout and the partials it renders", async () => {
    const [from, to] = [await source(), await createEnvironment()];
    const dry = await promote({ from: from.slug, to: to.slug, workflows: ["framed"], dryRun: true });
    expect(dry.body).toMatchObject({
      dryRun: true,
      layouts: [{ key: "frame", outcome: "created", version: 1 }],
      partials: [{ key: "sig", outcome: "created", version: 1 }],
    });
    expect((await api(to.key, "GET", "/v1/layouts/frame")).status).toBe(404);

    const res = await promote({ from: from.slug, to: to.slug, workflows: ["framed"] });
    expect(res.status).toBe(200);
    expect((await api(to.key, "GET", "/v1/layouts/frame")).body).toMatchObject({ html: "<main>{{ content }}</main>", version: 1 });
    expect((await api(to.key, "GET", "/v1/partials/sig")).body).toMatchObject({ content: "-- us" });
    expect((await api(to.key, "GET", "/v1/workflows/framed")).status).toBe(200);
  });

  it("refuses in the dry run a workflow whose layout neither environment has, and applies nothing", async () => {
    const [from, to] = [await source(), await createEnvironment()];
    // A workflow stored naming a layout that is not there (the API refuses to save one: written directly).
    const steps = JSON.stringify([{ ...framed.steps[0], layout: "gone" }]);
    await env.DB.prepare("UPDATE workflows SET steps = ? WHERE environment_id = ? AND key = 'framed'").bind(steps, from.id).run();
    for (const dryRun of [true, false]) {
      const res = await promote({ from: from.slug, to: to.slug, workflows: ["framed"], dryRun });
      expect(expectProblem(res, 422, "validation_failed").detail).toMatch(/layout "gone"/);
    }
    expect((await api(to.key, "GET", "/v1/partials/sig")).status).toBe(404);
    expect((await api(to.key, "GET", "/v1/workflows/framed")).status).toBe(404);
  });
});

describe("promotion and the default layout", () => {
  const plain = { key: "plain", name: "Plain", steps: [{ id: "mail", type: "email", template: { subject: "s", html: "<p>x</p>" } }] };
  const layoutOf = async (key: string, k: string) => (await api<{ isDefault: boolean; html: string }>(key, "GET", `/v1/layouts/${k}`)).body;

  async function withDefault(html = "<main>{{ content }}</main>") {
    const env = await createEnvironment();
    expect((await api(env.key, "POST", "/v1/layouts", { key: "house", name: "House", html, isDefault: true })).status).toBe(201);
    expect((await api(env.key, "POST", "/v1/workflows", plain)).status).toBe(201);
    return env;
  }

  it("promotes the source's default with a workflow whose email falls back to it, when the target has none", async () => {
    const [from, to] = [await withDefault(), await createEnvironment()];
    const dry = await promote({ from: from.slug, to: to.slug, workflows: ["plain"], dryRun: true });
    expect(dry.body.layouts).toEqual([{ key: "house", outcome: "created", version: 1 }]);
    expect((await api(to.key, "GET", "/v1/layouts/house")).status).toBe(404);

    expect((await promote({ from: from.slug, to: to.slug, workflows: ["plain"] })).status).toBe(200);
    expect(await layoutOf(to.key, "house")).toMatchObject({ isDefault: true, html: "<main>{{ content }}</main>" });
  });

  it("leaves the target's own default alone", async () => {
    const [from, to] = [await withDefault(), await createEnvironment()];
    expect(
      (await api(to.key, "POST", "/v1/layouts", { key: "theirs", name: "Theirs", html: "<b>{{ content }}</b>", isDefault: true })).status,
    ).toBe(201);
    const res = await promote({ from: from.slug, to: to.slug, workflows: ["plain"] });
    expect(res.body.layouts).toEqual([]);
    expect((await api(to.key, "GET", "/v1/layouts/house")).status).toBe(404);
    expect(await layoutOf(to.key, "theirs")).toMatchObject({ isDefault: true });
  });

  it("does not move the target's default flag to a layout a workflow names", async () => {
    const from = await createEnvironment();
    expect(
      (await api(from.key, "POST", "/v1/layouts", { key: "frame", name: "Frame", html: "<i>{{ content }}</i>", isDefault: true })).status,
    ).toBe(201);
    expect(
      (await api(from.key, "POST", "/v1/workflows", { ...framed, steps: [{ ...framed.steps[0], template: { subject: "s", html: "x" } }] }))
        .status,
    ).toBe(201);
    const to = await createEnvironment();
    expect(
      (await api(to.key, "POST", "/v1/layouts", { key: "theirs", name: "Theirs", html: "<b>{{ content }}</b>", isDefault: true })).status,
    ).toBe(201);
    expect((await promote({ from: from.slug, to: to.slug, workflows: ["framed"] })).status).toBe(200);
    expect(await layoutOf(to.key, "frame")).toMatchObject({ isDefault: false });
    expect(await layoutOf(to.key, "theirs")).toMatchObject({ isDefault: true });
  });

  it("refuses in the dry run a default layout rendering a partial neither environment has, and applies nothing", async () => {
    const [from, to] = [await withDefault(), await createEnvironment()];
    // A layout stored rendering a partial that is not there (the API refuses to save one: written directly).
    await env.DB.prepare("UPDATE layouts SET html = ? WHERE environment_id = ? AND key = 'house'")
      .bind('<main>{{ content }}{% render "gone" %}</main>', from.id)
      .run();
    for (const dryRun of [true, false]) {
      const res = await promote({ from: from.slug, to: to.slug, workflows: ["plain"], dryRun });
      expect(expectProblem(res, 422, "validation_failed").detail).toMatch(/partial "gone"/);
    }
    expect((await api(to.key, "GET", "/v1/layouts/house")).status).toBe(404);
    expect((await api(to.key, "GET", "/v1/workflows/plain")).status).toBe(404);
  });
});

describe("promotion of workflow trees", () => {
  const branched = (inner: Record<string, unknown>[]) => ({
    key: "branched",
    name: "Branched",
    steps: [
      {
        id: "route",
        type: "branch",
        paths: [{ id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: inner }],
      },
    ],
  });

  it("moves the layout and partials of an email used only inside a branch path", async () => {
    const from = await source();
    expect((await api(from.key, "POST", "/v1/workflows", branched([framed.steps[0]!]))).status).toBe(201);
    const to = await createEnvironment();
    const res = await promote({ from: from.slug, to: to.slug, workflows: ["branched"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      layouts: [{ key: "frame", outcome: "created" }],
      partials: [{ key: "sig", outcome: "created" }],
    });
  });

  it("refuses a workflow that triggers one the target lacks, unless that one is promoted with it", async () => {
    const from = await createEnvironment();
    const child = { key: "child", name: "Child", steps: [{ id: "feed", type: "in_app", template: { body: "Hi" } }] };
    expect((await api(from.key, "POST", "/v1/workflows", child)).status).toBe(201);
    expect(
      (await api(from.key, "POST", "/v1/workflows", branched([{ id: "start", type: "trigger_workflow", workflow: "child" }]))).status,
    ).toBe(201);
    const to = await createEnvironment();
    for (const dryRun of [true, false]) {
      const res = await promote({ from: from.slug, to: to.slug, workflows: ["branched"], dryRun });
      expect(expectProblem(res, 422, "validation_failed").detail).toMatch(/workflow "child" \(triggered by "branched"\)/);
    }
    expect((await api(to.key, "GET", "/v1/workflows/branched")).status).toBe(404);
    const both = await promote({ from: from.slug, to: to.slug, workflows: ["branched", "child"] });
    expect(both.status).toBe(200);
    // Now that the target has it, the parent alone goes through.
    expect((await promote({ from: from.slug, to: to.slug, workflows: ["branched"] })).status).toBe(200);
  });
});
