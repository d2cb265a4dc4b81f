import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/features/workflows/schemas";
import { createEnvironment, unique } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";

let environment: { id: string; key: string; slug: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

type Json = Record<string, unknown>;
const call = <T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api<T>(environment.key, method, path, body, { headers });

const email = (subject: string) => ({ id: "mail", type: "email", template: { subject, text: "Hello {{ payload.name }}" } });
const body = (key: string, overrides: Json = {}) => ({ key, name: "Welcome", steps: [email("Hi")], ...overrides });

async function created(overrides: Json = {}) {
  const key = unique("v").toLowerCase();
  const res = await call<Workflow>("POST", "/v1/workflows", body(key, overrides));
  expect(res.status).toBe(201);
  return { key, workflow: res.body, etag: res.headers.get("etag") };
}

interface VersionBody {
  version: number;
  action: string;
  author: { type: string; id: string | null; name: string };
  summary: string;
  definition: Json;
}

/** Applies an RFC 6902 patch of add/remove/replace, to check the diff leads where it says. */
function applyPatch(document: unknown, patch: { op: string; path: string; value?: unknown }[]): unknown {
  let doc = structuredClone(document);
  for (const { op, path, value } of patch) {
    const parts = path
      .split("/")
      .slice(1)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (parts.length === 0) {
      doc = structuredClone(value);
      continue;
    }
    const last = parts.pop() as string;
    const parent = parts.reduce<Record<string, unknown>>(
      (node, part) => node[part] as Record<string, unknown>,
      doc as Record<string, unknown>,
    );
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (op === "add") parent.splice(index, 0, structuredClone(value));
      else if (op === "remove") parent.splice(index, 1);
      else parent[index] = structuredClone(value);
    } else if (op === "remove") delete parent[last];
    else parent[last] = structuredClone(value);
  }
  return doc;
}

describe("workflow versions", () => {
  it("writes version 1 on create, with the author's key by id and name and an ETag", async () => {
    const { key, workflow, etag } = await created();
    expect(workflow.version).toBe(1);
    expect(etag).toBe('"1"');
    const list = await call<{ data: VersionBody[]; nextCursor: string | null }>("GET", `/v1/workflows/${key}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        version: 1,
        action: "created",
        summary: "Created",
        author: { type: "key", id: expect.stringMatching(/^key_/), name: "test" },
        definition: expect.objectContaining({ key, name: "Welcome" }),
      }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(environment.key);
  });

  it("three edits make three more versions, newest first, each diff leading from one to the next", async () => {
    const { key } = await created();
    await call("PUT", `/v1/workflows/${key}`, body(key, { steps: [email("Hello")] }));
    await call("PUT", `/v1/workflows/${key}`, body(key, { steps: [email("Hello"), { id: "wait", type: "delay", for: "PT1M" }] }));
    const third = await call<Workflow>(
      "PUT",
      `/v1/workflows/${key}`,
      body(key, { active: false, steps: [email("Hello"), { id: "wait", type: "delay", for: "PT1M" }] }),
    );
    expect(third.body.version).toBe(4);
    expect(third.headers.get("etag")).toBe('"4"');

    const list = await call<{ data: VersionBody[] }>("GET", `/v1/workflows/${key}/versions`);
    expect(list.body.data.map((v) => [v.version, v.action, v.summary])).toEqual([
      [4, "updated", "Deactivated"],
      [3, "updated", 'step "wait" added'],
      [2, "updated", 'step "mail": template.subject changed'],
      [1, "created", "Created"],
    ]);
    for (const [from, to] of [
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 1],
    ]) {
      const diff = await call<{ patch: { op: string; path: string; value?: unknown }[] }>(
        "GET",
        `/v1/workflows/${key}/diff?from=${from}&to=${to}`,
      );
      expect(diff.status).toBe(200);
      const a = (await call<VersionBody>("GET", `/v1/workflows/${key}/versions/${from}`)).body.definition;
      const b = (await call<VersionBody>("GET", `/v1/workflows/${key}/versions/${to}`)).body.definition;
      expect(applyPatch(a, diff.body.patch)).toEqual(b);
    }
    const diff = await call("GET", `/v1/workflows/${key}/diff?from=1&to=2`);
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      patch: [{ op: "replace", path: "/steps/0/template/subject", value: "Hello" }],
      changes: [{ step: "mail", change: "changed", fields: ["template.subject"], path: "steps.0" }],
    });
  });

  it("diffs the current version against the one before when from and to are left out", async () => {
    const { key } = await created();
    await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Renamed" }));
    const diff = await call("GET", `/v1/workflows/${key}/diff`);
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      patch: [{ op: "replace", path: "/name", value: "Renamed" }],
      changes: [{ step: null, change: "changed", fields: ["name"] }],
    });
  });

  it("pages versions newest first with a cursor", async () => {
    const { key } = await created();
    for (const subject of ["a", "b", "c"]) await call("PUT", `/v1/workflows/${key}`, body(key, { steps: [email(subject)] }));
    const first = await call<{ data: VersionBody[]; nextCursor: string | null }>("GET", `/v1/workflows/${key}/versions?limit=3`);
    expect(first.body.data.map((v) => v.version)).toEqual([4, 3, 2]);
    const second = await call<{ data: VersionBody[]; nextCursor: string | null }>(
      "GET",
      `/v1/workflows/${key}/versions?limit=3&cursor=${first.body.nextCursor}`,
    );
    expect(second.body).toEqual({ data: [expect.objectContaining({ version: 1 })], nextCursor: null });
  });

  it("a save that changes nothing writes no version", async () => {
    const { key } = await created();
    const res = await call<Workflow>("PUT", `/v1/workflows/${key}`, body(key));
    expect(res.body.version).toBe(1);
  });

  it("a save that changes only the unsubscribe setting is a new version, and is kept", async () => {
    const { key } = await created();
    const res = await call<Workflow>("PUT", `/v1/workflows/${key}`, body(key, { unsubscribe: "email" }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ unsubscribe: "email", version: 2 });
    expect((await call<Workflow>("GET", `/v1/workflows/${key}`)).body.unsubscribe).toBe("email");
    const diff = await call<{ changes: unknown[] }>("GET", `/v1/workflows/${key}/diff`);
    expect(diff.body.changes).toEqual([{ step: null, change: "changed", fields: ["unsubscribe"] }]);
  });

  it("records the admin credential as the author", async () => {
    const key = unique("v").toLowerCase();
    const res = await api<Workflow>(ADMIN_KEY, "POST", "/v1/workflows", body(key), {
      headers: { "clarion-environment": environment.slug },
    });
    expect(res.status).toBe(201);
    const version = await call<VersionBody>("GET", `/v1/workflows/${key}/versions/1`);
    expect(version.body.author).toEqual({ type: "admin", id: null, name: "admin" });
  });

  it("revert writes a new version with the old content", async () => {
    const { key } = await created();
    await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Renamed", steps: [email("Changed")] }));
    const res = await call<Workflow>("POST", `/v1/workflows/${key}/revert`, { version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ version: 3, name: "Welcome", steps: [email("Hi")] }));
    const latest = await call<VersionBody>("GET", `/v1/workflows/${key}/versions/3`);
    expect(latest.body).toEqual(expect.objectContaining({ action: "reverted", summary: "Reverted to version 1" }));
    expect((await call<Workflow>("GET", `/v1/workflows/${key}`)).body.steps).toEqual([email("Hi")]);
  });

  it("revert with a stale If-Match answers 409 and changes nothing", async () => {
    const { key } = await created();
    await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Renamed" }));
    const res = await call("POST", `/v1/workflows/${key}/revert`, { version: 1 }, { "if-match": '"1"' });
    expectProblem(res, 409, "workflow_version_conflict");
    expect((await call<Workflow>("GET", `/v1/workflows/${key}`)).body).toEqual(expect.objectContaining({ name: "Renamed", version: 2 }));
  });

  it("delete writes a last version, and a new workflow under the key starts at 1", async () => {
    const { key, workflow } = await created();
    expect((await call("DELETE", `/v1/workflows/${key}`)).status).toBe(204);
    const row = await env.DB.prepare("SELECT version, action, summary FROM workflow_versions WHERE workflow_id = ? ORDER BY version DESC")
      .bind(workflow.id)
      .first();
    expect(row).toEqual({ version: 2, action: "deleted", summary: "Deleted" });
    const again = await call<Workflow>("POST", "/v1/workflows", body(key));
    expect(again.body.version).toBe(1);
    expect((await call<{ data: VersionBody[] }>("GET", `/v1/workflows/${key}/versions`)).body.data).toHaveLength(1);
  });
});

describe("If-Match", () => {
  it("a PUT with the current ETag saves; with an old one answers 412 workflow_changed and keeps the other's save", async () => {
    const { key, etag } = await created();
    const ok = await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Mine" }), { "if-match": etag ?? "" });
    expect(ok.status).toBe(200);
    const stale = await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Theirs" }), { "if-match": etag ?? "" });
    expectProblem(stale, 412, "workflow_changed");
    expect(stale.headers.get("etag")).toBe('"2"');
    expect((await call<Workflow>("GET", `/v1/workflows/${key}`)).body.name).toBe("Mine");
  });

  it("of two concurrent PUTs with the same If-Match, one answers 200 and the other 412", async () => {
    const { key, etag } = await created();
    const results = await Promise.all(
      ["One", "Two"].map((name) => call("PUT", `/v1/workflows/${key}`, body(key, { name }), { "if-match": etag ?? "" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    const list = await call<{ data: VersionBody[] }>("GET", `/v1/workflows/${key}/versions`);
    expect(list.body.data.map((v) => v.version)).toEqual([2, 1]);
    const winner = results.find((r) => r.status === 200)?.body as Workflow;
    expect(list.body.data[0]?.definition.name).toBe(winner.name);
  });

  it("two concurrent PUTs without If-Match both land, as two versions", async () => {
    const { key } = await created();
    const results = await Promise.all(["One", "Two"].map((name) => call("PUT", `/v1/workflows/${key}`, body(key, { name }))));
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const list = await call<{ data: VersionBody[] }>("GET", `/v1/workflows/${key}/versions`);
    expect(list.body.data.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("a DELETE with an old ETag answers 412 and deletes nothing", async () => {
    const { key } = await created();
    await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Mine" }));
    expectProblem(await call("DELETE", `/v1/workflows/${key}`, undefined, { "if-match": '"1"' }), 412, "workflow_changed");
    expect((await call("GET", `/v1/workflows/${key}`)).status).toBe(200);
  });

  it.each(["*", 'W/"1"', '"7", "1"'])("If-Match %s matches version 1", async (header) => {
    const { key } = await created();
    expect((await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Next" }), { "if-match": header })).status).toBe(200);
  });

  it.each(["1", '"abc"', '"0"', "garbage"])("If-Match %s matches nothing: 412", async (header) => {
    const { key } = await created();
    expectProblem(await call("PUT", `/v1/workflows/${key}`, body(key, { name: "Next" }), { "if-match": header }), 412, "workflow_changed");
  });
});

describe("bad version input", () => {
  it.each([
    ["/versions/0", 422],
    ["/versions/-1", 422],
    ["/versions/1.5", 422],
    ["/versions/abc", 422],
    ["/versions/99999999999999999999", 422],
    ["/versions/9", 404],
    ["/versions?cursor=abc", 422],
    ["/versions?cursor=0", 422],
    ["/diff?from=2", 404],
    ["/diff?from=1&to=x", 422],
    ["/diff?from=1&to=5", 404],
  ])("GET %s answers %i, never 5xx", async (suffix, status) => {
    const { key } = await created();
    const res = await call("GET", `/v1/workflows/${key}${suffix}`);
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it.each([{}, { version: 0 }, { version: "1" }, { version: 1.5 }, { version: 1, extra: true }, { version: 1e300 }, []])(
    "revert with %j answers 422",
    async (input) => {
      const { key } = await created();
      expectProblem(await call("POST", `/v1/workflows/${key}/revert`, input), 422, "validation_failed");
    },
  );

  it("revert to a version the workflow does not have answers 404", async () => {
    const { key } = await created();
    expectProblem(await call("POST", `/v1/workflows/${key}/revert`, { version: 5 }), 404, "workflow_version_not_found");
  });

  it("versions of an unknown workflow answer 404", async () => {
    expectProblem(await call("GET", "/v1/workflows/nope-never/versions"), 404, "workflow_not_found");
  });
});

describe("GET /v1/workflows/{key}/diff across a tree", () => {
  const inApp = (id: string, body = "Hi") => ({ id, type: "in_app", template: { body } });
  const sms = (id: string, text = "Hi") => ({ id, type: "sms", template: { body: text } });
  const branch = (paths: { id: string; steps: Json[] }[], otherwise?: Json[]) => ({
    id: "route",
    type: "branch",
    paths: paths.map((p) => ({ ...p, if: { field: "payload.vip", op: "eq", value: true } })),
    ...(otherwise ? { default: { steps: otherwise } } : {}),
  });

  it("matches steps by id at any depth: a step taken into a path is moved, a nested edit is a change at its path", async () => {
    const { key } = await created({ steps: [inApp("feed"), sms("text"), branch([{ id: "vip", steps: [inApp("vip-feed")] }], [])] });
    const next = [inApp("feed"), branch([{ id: "vip", steps: [inApp("vip-feed", "Changed"), sms("text")] }], [inApp("late")])];
    expect((await call("PUT", `/v1/workflows/${key}`, body(key, { steps: next }))).status).toBe(200);

    const diff = await call<{ patch: { op: string; path: string; value?: unknown }[]; changes: Json[] }>(
      "GET",
      `/v1/workflows/${key}/diff?from=1&to=2`,
    );
    expect(diff.status).toBe(200);
    expect(diff.body.changes).toEqual([
      { step: "vip-feed", change: "changed", fields: ["template.body"], path: "steps.1.paths.0.steps.0" },
      { step: "text", change: "moved", fields: [], path: "steps.1.paths.0.steps.1", from: "steps.1" },
      { step: "late", change: "added", fields: [], path: "steps.1.default.steps.0" },
    ]);
    // The branch itself did not change: only what is inside its paths did.
    expect(diff.body.changes.some((c) => c.step === "route")).toBe(false);
    const a = (await call<VersionBody>("GET", `/v1/workflows/${key}/versions/1`)).body.definition;
    const b = (await call<VersionBody>("GET", `/v1/workflows/${key}/versions/2`)).body.definition;
    expect(applyPatch(a, diff.body.patch)).toEqual(b);
    expect(applyPatch(b, (await call<{ patch: [] }>("GET", `/v1/workflows/${key}/diff?from=2&to=1`)).body.patch)).toEqual(a);

    const versions = await call<{ data: VersionBody[] }>("GET", `/v1/workflows/${key}/versions`);
    expect(versions.body.data[0]?.summary).toBe('step "vip-feed": template.body changed; step "text" moved; step "late" added');
  });

  it("a branch's own fields are its changes (a renamed path moves nothing); a removed nested step is removed at its old path", async () => {
    const { key } = await created({ steps: [branch([{ id: "vip", steps: [inApp("a"), inApp("b")] }])] });
    const changed = branch([{ id: "gold", steps: [inApp("a")] }]);
    expect((await call("PUT", `/v1/workflows/${key}`, body(key, { steps: [changed] }))).status).toBe(200);
    const diff = await call<{ changes: Json[] }>("GET", `/v1/workflows/${key}/diff`);
    expect(diff.body.changes).toEqual([
      { step: "b", change: "removed", fields: [], path: "steps.0.paths.0.steps.1" },
      { step: "route", change: "changed", fields: ["paths.0.id"], path: "steps.0" },
    ]);
  });
});
