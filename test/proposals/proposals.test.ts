import { beforeAll, describe, expect, it } from "vitest";
import type { Proposal } from "../../src/features/proposals/schemas";
import { auditLog } from "../audit/helpers";
import { createEnvironment, createWorkflow, unique, workflowBody } from "../factories";
import { api, expectProblem } from "../request";

type Env = { id: string; key: string; slug: string };
let environment: Env;
beforeAll(async () => {
  environment = await createEnvironment();
});

const propose = (key: string, body: Record<string, unknown>) => api<Proposal>(key, "POST", "/v1/proposals", body);
const apply = (key: string, id: string) => api<Proposal>(key, "POST", `/v1/proposals/${id}/apply`);
const versionsOf = async (key: string, workflow: string) =>
  (await api<{ data: { version: number }[] }>(key, "GET", `/v1/workflows/${workflow}/versions`)).body.data.map((v) => v.version);

describe("POST /v1/proposals", () => {
  it("records a workflow change as pending, with its base version, diff, validation and preview, and changes nothing", async () => {
    const wf = await createWorkflow(environment.key, { payloadSchema: { type: "object", examples: [{ orderId: "A-17" }] } });
    const content = {
      ...workflowBody({ key: wf.key }),
      steps: [{ ...workflowBody().steps[0], template: { subject: "Order {{ payload.orderId }} is on its way", text: "Hi" } }],
    };
    const res = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      content: { ...content, payloadSchema: wf.payloadSchema },
      note: "warmer",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^prp_/),
      status: "pending",
      baseVersion: 1,
      note: "warmer",
      validation: { ok: true, errors: [] },
      proposedBy: { type: "key", name: "test" },
    });
    expect(res.body.diff).toEqual(
      expect.arrayContaining([{ op: "replace", path: "/steps/0/template/subject", value: "Order {{ payload.orderId }} is on its way" }]),
    );
    expect(res.body.preview).toMatchObject({
      resource: "workflow",
      steps: [{ id: "email-1", content: { subject: "Order A-17 is on its way" } }],
    });
    expect(res.body.base).toMatchObject({ key: wf.key, name: wf.name, steps: wf.steps });
    expect(res.body.changes).toContainEqual(expect.objectContaining({ step: "email-1", change: "changed" }));
    expect(await versionsOf(environment.key, wf.key)).toEqual([1]);
  });

  it("applies a patch to the current content", async () => {
    const wf = await createWorkflow(environment.key);
    const res = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [
        { op: "test", path: "/name", value: "Order shipped" },
        { op: "replace", path: "/name", value: "Order dispatched" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.diff).toEqual([{ op: "replace", path: "/name", value: "Order dispatched" }]);
    expect(res.body.content).toMatchObject({ key: wf.key, name: "Order dispatched", steps: wf.steps });
  });

  it("refuses a patch that cannot apply, naming the operation", async () => {
    const wf = await createWorkflow(environment.key);
    const res = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/steps/7/name", value: "x" }],
    });
    expect(expectProblem(res, 422, "proposal_patch_failed").errors).toEqual([
      { path: "patch.0", message: expect.stringContaining("out of range") },
    ]);
  });

  it("reports validation errors with field paths, and still stores the proposal", async () => {
    const wf = await createWorkflow(environment.key);
    const res = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [
        { op: "replace", path: "/steps/0/template/subject", value: "{% if %}" },
        { op: "add", path: "/steps/0/layout", value: "no-such-layout" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.validation.ok).toBe(false);
    expect(res.body.validation.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "steps.0.template.subject" })]));
    const missingLayout = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "add", path: "/steps/0/layout", value: "no-such-layout" }],
    });
    expect(missingLayout.body.validation).toEqual({
      ok: false,
      errors: [{ path: "steps.0.layout", message: expect.stringContaining("no-such-layout") }],
    });
    expect((await api<Proposal>(environment.key, "GET", `/v1/proposals/${res.body.id}`)).body.status).toBe("pending");
  });

  it("refuses content and patch together, and neither", async () => {
    expectProblem(
      await propose(environment.key, { resource: "workflow", key: "a", content: {}, patch: [{ op: "remove", path: "/x" }] }),
      422,
      "validation_failed",
    );
    expectProblem(await propose(environment.key, { resource: "workflow", key: "a" }), 422, "validation_failed");
  });
});

describe("POST /v1/proposals/{id}/apply", () => {
  it("creates exactly one version and one audit entry naming the proposal, and records who applied it", async () => {
    const wf = await createWorkflow(environment.key);
    const made = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/name", value: "Applied" }],
    });
    const res = await apply(environment.key, made.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "applied",
      appliedVersion: 2,
      decidedBy: { type: "key", name: "test" },
      decidedAt: expect.any(String),
    });
    expect(await versionsOf(environment.key, wf.key)).toEqual([2, 1]);
    expect((await api(environment.key, "GET", `/v1/workflows/${wf.key}`)).body).toMatchObject({ name: "Applied", version: 2 });
    const entries = (await auditLog(environment.key, `resource=workflow&resourceId=${wf.key}`)).body.data;
    expect(entries.map((e) => [e.action, e.proposalId])).toEqual([
      ["updated", made.body.id],
      ["created", null],
    ]);
  });

  it("creates a resource the proposal named before it existed", async () => {
    const body = workflowBody();
    const made = await propose(environment.key, { resource: "workflow", key: body.key, content: body });
    expect(made.body).toMatchObject({ baseVersion: null, diff: [{ op: "add", path: "" }] });
    expect((await api(environment.key, "GET", `/v1/workflows/${body.key}`)).status).toBe(404);
    expect((await apply(environment.key, made.body.id)).body).toMatchObject({ status: "applied", appliedVersion: 1 });
    expect(await versionsOf(environment.key, body.key)).toEqual([1]);
  });

  it("answers 409 proposal_stale when the resource changed since the base version, and changes nothing", async () => {
    const wf = await createWorkflow(environment.key);
    const made = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/name", value: "Mine" }],
    });
    expect(
      (await api(environment.key, "PUT", `/v1/workflows/${wf.key}`, { ...workflowBody({ key: wf.key }), name: "Theirs" })).status,
    ).toBe(200);
    expectProblem(await apply(environment.key, made.body.id), 409, "proposal_stale");
    expect(await versionsOf(environment.key, wf.key)).toEqual([2, 1]);
    expect((await api<Proposal>(environment.key, "GET", `/v1/proposals/${made.body.id}`)).body.status).toBe("pending");
  });

  it("answers 409 proposal_stale when a resource it would create was created since", async () => {
    const body = workflowBody();
    const made = await propose(environment.key, { resource: "workflow", key: body.key, content: body });
    await createWorkflow(environment.key, { key: body.key, name: "First" });
    expectProblem(await apply(environment.key, made.body.id), 409, "proposal_stale");
  });

  it("refuses a proposal whose validation failed (422 proposal_invalid)", async () => {
    const wf = await createWorkflow(environment.key);
    const made = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/name", value: "" }],
    });
    expect(made.body.validation).toEqual({ ok: false, errors: [{ path: "name", message: expect.any(String) }] });
    const res = await apply(environment.key, made.body.id);
    expect(expectProblem(res, 422, "proposal_invalid").errors).toEqual([{ path: "name", message: expect.any(String) }]);
    expect(await versionsOf(environment.key, wf.key)).toEqual([1]);
  });

  it("answers 409 proposal_not_pending for an applied or rejected proposal", async () => {
    const wf = await createWorkflow(environment.key);
    const made = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/name", value: "Once" }],
    });
    expect((await apply(environment.key, made.body.id)).status).toBe(200);
    expectProblem(await apply(environment.key, made.body.id), 409, "proposal_not_pending");
    expectProblem(await api(environment.key, "POST", `/v1/proposals/${made.body.id}/reject`, {}), 409, "proposal_not_pending");
    expect(await versionsOf(environment.key, wf.key)).toEqual([2, 1]);
  });
});

describe("POST /v1/proposals/{id}/reject", () => {
  it("marks it rejected with its reason and changes nothing else", async () => {
    const wf = await createWorkflow(environment.key);
    const made = await propose(environment.key, {
      resource: "workflow",
      key: wf.key,
      patch: [{ op: "replace", path: "/name", value: "No" }],
    });
    const before = (await auditLog(environment.key)).body.data.length;
    const res = await api<Proposal>(environment.key, "POST", `/v1/proposals/${made.body.id}/reject`, { reason: "Keep the name" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "rejected",
      rejectReason: "Keep the name",
      appliedVersion: null,
      decidedBy: { name: "test" },
    });
    expect(await versionsOf(environment.key, wf.key)).toEqual([1]);
    expect((await api(environment.key, "GET", `/v1/workflows/${wf.key}`)).body).toMatchObject({ name: "Order shipped" });
    expect((await auditLog(environment.key)).body.data.length).toBe(before);
    expectProblem(await apply(environment.key, made.body.id), 409, "proposal_not_pending");
  });
});

describe("each resource kind", () => {
  it("proposes and applies a layout, checked as a save (content slot), previewed around a sample", async () => {
    const key = unique("lay").toLowerCase();
    const bad = await propose(environment.key, { resource: "layout", key, content: { key, name: "L", html: "<main>no slot</main>" } });
    expect(bad.body.validation).toEqual({ ok: false, errors: [{ path: "html", message: expect.stringContaining("{{ content }}") }] });
    const good = await propose(environment.key, {
      resource: "layout",
      key,
      content: { key, name: "L", html: "<main>{{ content }}</main>" },
    });
    expect(good.body).toMatchObject({
      validation: { ok: true },
      baseVersion: null,
      preview: { resource: "layout", html: "<main><p>Your message goes here.</p></main>", text: null },
    });
    expect((await apply(environment.key, good.body.id)).body).toMatchObject({ status: "applied", appliedVersion: 1 });
    const edit = await propose(environment.key, { resource: "layout", key, patch: [{ op: "replace", path: "/name", value: "Layout" }] });
    expect(edit.body).toMatchObject({ baseVersion: 1, diff: [{ op: "replace", path: "/name", value: "Layout" }] });
    expect((await apply(environment.key, edit.body.id)).body).toMatchObject({ appliedVersion: 2 });
    expect((await api(environment.key, "GET", `/v1/layouts/${key}`)).body).toMatchObject({ name: "Layout", version: 2 });
  });

  it("proposes and applies a partial, its Liquid checked and rendered", async () => {
    const key = unique("prt").toLowerCase();
    const bad = await propose(environment.key, {
      resource: "partial",
      key,
      content: { key, name: "P", content: "{% if %}", type: "html" },
    });
    expect(bad.body.validation).toMatchObject({ ok: false, errors: [{ path: "content" }] });
    const good = await propose(environment.key, {
      resource: "partial",
      key,
      content: { key, name: "P", content: "<p>{{ 'hi' | upcase }}</p>", type: "html" },
    });
    expect(good.body).toMatchObject({ validation: { ok: true }, preview: { resource: "partial", content: "<p>HI</p>" } });
    expect((await apply(environment.key, good.body.id)).body).toMatchObject({ appliedVersion: 1 });
    expect((await api(environment.key, "GET", `/v1/partials/${key}`)).status).toBe(200);
  });

  it("proposes and applies a locale's translations by locale, in its canonical case", async () => {
    const first = await propose(environment.key, {
      resource: "translations",
      key: "fr-ca",
      content: { keys: { welcome: { subject: "Bonjour {{ name }}" } } },
    });
    expect(first.body).toMatchObject({
      key: "fr-CA",
      baseVersion: null,
      preview: { resource: "translations", texts: { "welcome.subject": "Bonjour {{ name }}" } },
    });
    expect((await apply(environment.key, first.body.id)).body).toMatchObject({ appliedVersion: 1 });
    const bad = await propose(environment.key, {
      resource: "translations",
      key: "fr-CA",
      patch: [{ op: "add", path: "/keys/welcome/body", value: "{% if %}" }],
    });
    expect(bad.body).toMatchObject({ baseVersion: 1, validation: { ok: false, errors: [{ path: "keys.welcome.body" }] } });
    const edit = await propose(environment.key, {
      resource: "translations",
      key: "fr-CA",
      patch: [{ op: "add", path: "/keys/welcome/body", value: "Salut" }],
    });
    expect((await apply(environment.key, edit.body.id)).body).toMatchObject({ appliedVersion: 2 });
    expect((await api(environment.key, "GET", "/v1/translations/fr-CA")).body).toMatchObject({
      keys: { welcome: { subject: "Bonjour {{ name }}", body: "Salut" } },
      version: 2,
    });
  });
});

describe("GET /v1/proposals", () => {
  it("lists by status, newest first, with the pending count, paged", async () => {
    const own = await createEnvironment();
    const wf = await createWorkflow(own.key);
    const ids: string[] = [];
    for (const name of ["A", "B", "C"]) {
      ids.push(
        (await propose(own.key, { resource: "workflow", key: wf.key, patch: [{ op: "replace", path: "/name", value: name }] })).body.id,
      );
    }
    await api(own.key, "POST", `/v1/proposals/${ids[0]}/reject`, {});
    const pending = await api<{ data: Proposal[]; nextCursor: string | null; pending: number }>(
      own.key,
      "GET",
      "/v1/proposals?status=pending&limit=1",
    );
    expect(pending.body.pending).toBe(2);
    expect(pending.body.data.map((p) => p.id)).toEqual([ids[2]]);
    const next = await api<{ data: Proposal[] }>(own.key, "GET", `/v1/proposals?status=pending&limit=1&cursor=${pending.body.nextCursor}`);
    expect(next.body.data.map((p) => p.id)).toEqual([ids[1]]);
    const rejected = await api<{ data: Proposal[] }>(own.key, "GET", "/v1/proposals?status=rejected");
    expect(rejected.body.data.map((p) => p.id)).toEqual([ids[0]]);
  });

  it("keeps each environment's proposals to itself", async () => {
    const [a, b] = [await createEnvironment(), await createEnvironment()];
    const wf = await createWorkflow(a.key);
    const made = await propose(a.key, { resource: "workflow", key: wf.key, patch: [{ op: "replace", path: "/name", value: "Mine" }] });
    expect((await api<{ data: Proposal[]; pending: number }>(b.key, "GET", "/v1/proposals")).body).toMatchObject({ data: [], pending: 0 });
    expectProblem(await api(b.key, "GET", `/v1/proposals/${made.body.id}`), 404, "proposal_not_found");
    expectProblem(await apply(b.key, made.body.id), 404, "proposal_not_found");
    expectProblem(await api(b.key, "POST", `/v1/proposals/${made.body.id}/reject`, {}), 404, "proposal_not_found");
    expect((await api<Proposal>(a.key, "GET", `/v1/proposals/${made.body.id}`)).body.status).toBe("pending");
  });
});
