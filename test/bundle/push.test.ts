import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { versionGuard } from "../../src/features/bundle/repository";
import type { PushChange } from "../../src/features/bundle/schemas";
import { createEnvironment } from "../factories";
import { api, expectProblem } from "../request";

type Json = Record<string, unknown>;
let environment: { id: string; key: string; slug: string };
beforeAll(async () => {
  environment = await createEnvironment();
});
const call = <T = Json>(method: string, path: string, body?: unknown) => api<T>(environment.key, method, path, body);

const frame = { key: "frame", name: "Frame", html: "<main>{{ content }}</main>" };
const footer = { key: "footer", name: "Footer", content: "<p>{{ 'footer.bye' | t }}</p>", type: "html" };
const welcome = (subject: string) => ({
  key: "welcome",
  name: "Welcome",
  payloadSchema: { type: "object", properties: { name: { type: "string" } } },
  steps: [{ id: "mail", type: "email", layout: "frame", template: { subject, html: '<p>Hi</p>{% render "footer" %}' } }],
});
const bundle = (subject: string, extra: Json = {}) => ({
  workflows: [welcome(subject)],
  layouts: [frame],
  partials: [footer],
  translations: [{ locale: "en", keys: { footer: { bye: "Bye" } } }],
  ...extra,
});

type Change = { resource: string; key: string; change: string; version: number; patch: unknown[] };
type Result = { dryRun: boolean; changes: Change[] };
const outcome = (r: Result) => r.changes.map((c) => `${c.resource}:${c.key}:${c.change}:${c.version}`);

describe("POST /v1/content/push", () => {
  it("a dry run answers what would change and changes nothing", async () => {
    const res = await call<Result>("POST", "/v1/content/push", { ...bundle("Hello"), dryRun: true });
    expect(res.status).toBe(200);
    expect(outcome(res.body)).toEqual([
      "workflow:welcome:added:1",
      "layout:frame:added:1",
      "partial:footer:added:1",
      "translations:en:added:1",
    ]);
    expect((await call("GET", "/v1/workflows/welcome")).status).toBe(404);
    expect((await call("GET", "/v1/layouts/frame")).status).toBe(404);
  });

  it("adds everything in one request, a workflow naming a layout, partial and key the same push adds, audited as cli", async () => {
    const res = await call<Result>("POST", "/v1/content/push", bundle("Hello"));
    expect(res.status).toBe(200);
    expect(res.body.dryRun).toBe(false);
    expect((await call("GET", "/v1/workflows/welcome")).body).toMatchObject({ version: 1, steps: [{ layout: "frame" }] });
    const audit = await call<{ data: { resource: string; actor: { type: string; name: string } }[] }>("GET", "/v1/audit-log?limit=20");
    const pushed = audit.body.data.filter((e) => ["workflow", "layout", "partial", "translation"].includes(e.resource));
    expect(pushed).toHaveLength(4);
    for (const entry of pushed) expect(entry.actor).toMatchObject({ type: "key", name: "cli" });
  });

  it("pushing the same again changes nothing; one changed field is one new version", async () => {
    const same = await call<Result>("POST", "/v1/content/push", bundle("Hello"));
    expect(same.body.changes.every((c) => c.change === "unchanged")).toBe(true);
    const res = await call<Result>("POST", "/v1/content/push", bundle("Hello again"));
    const changed = res.body.changes.filter((c) => c.change !== "unchanged");
    expect(changed).toEqual([
      {
        resource: "workflow",
        key: "welcome",
        change: "changed",
        version: 2,
        patch: [{ op: "replace", path: "/steps/0/template/subject", value: "Hello again" }],
      },
    ]);
    const versions = await call<{ data: { version: number; author: { name: string } }[] }>("GET", "/v1/workflows/welcome/versions");
    expect(versions.body.data.map((v) => v.version)).toEqual([2, 1]);
    expect(versions.body.data[0]!.author.name).toBe("cli");
  });

  it("refuses the whole push with every error under its resource's path, and changes nothing", async () => {
    const res = await call("POST", "/v1/content/push", {
      ...bundle("Changed but refused"),
      layouts: [{ ...frame, html: "<main>no slot</main>" }],
      partials: [{ ...footer, content: '{% render "nowhere" %}' }],
    });
    const problem = expectProblem(res, 422, "validation_failed");
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "layouts.0.html" }),
        expect.objectContaining({ path: expect.stringMatching(/^partials\.0\./) }),
      ]),
    );
    expect((await call("GET", "/v1/workflows/welcome")).body).toMatchObject({
      version: 2,
      steps: [{ template: { subject: "Hello again" } }],
    });
    expect((await call("GET", "/v1/layouts/frame")).body).toMatchObject({ version: 1, html: frame.html });
  });

  it("refuses a workflow naming a layout the push prunes", async () => {
    const res = await call("POST", "/v1/content/push", { ...bundle("Hello again"), layouts: [], prune: true });
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([expect.objectContaining({ path: "workflows.0.steps.0.layout" })]);
    expect((await call("GET", "/v1/layouts/frame")).status).toBe(200);
  });

  it("removes only with prune, each removal a version", async () => {
    const other = { key: "other", name: "Other", steps: [{ id: "c", type: "chat", template: { text: "Hi" } }] };
    expect((await call("POST", "/v1/workflows", other)).status).toBe(201);
    const kept = await call<Result>("POST", "/v1/content/push", bundle("Hello again"));
    expect(kept.body.changes.some((c) => c.key === "other")).toBe(false);
    const pruned = await call<Result>("POST", "/v1/content/push", { ...bundle("Hello again"), prune: true });
    expect(pruned.body.changes.filter((c) => c.change !== "unchanged")).toEqual([
      { resource: "workflow", key: "other", change: "removed", version: 2, patch: [] },
    ]);
    expect((await call("GET", "/v1/workflows/other")).status).toBe(404);
  });
});

describe("a push racing another save", () => {
  it("changes nothing and answers content_changed when a resource moved since the push read it", async () => {
    const own = await createEnvironment();
    const push = (body: Json) => api<Json>(own.key, "POST", "/v1/content/push", body);
    const empty = { workflows: [], layouts: [], partials: [], brand: null, translations: [] };
    expect((await push({ ...empty, layouts: [frame] })).status).toBe(200);
    // What the push planned from: the layout at version 1. A save lands before its batch does.
    const db = createDb(env.DB);
    const planned: PushChange = { resource: "layout", key: "frame", change: "changed", patch: [], version: 2 };
    expect((await api(own.key, "PUT", "/v1/layouts/frame", { ...frame, html: "<div>{{ content }}</div>" })).status).toBe(200);
    const marker = env.DB.prepare(
      "INSERT INTO variables (id, environment_id, key, value, secret, created_at, updated_at) VALUES ('var_guard', ?, 'GUARD', 'x', 0, 0, 0)",
    ).bind(own.id);
    await expect(db.$client.batch([versionGuard(db, own.id, planned), marker])).rejects.toThrow(/malformed JSON/);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM variables WHERE id = 'var_guard'").first("n")).toBe(0);
    // At the version it planned from, the same guard lets the batch through.
    const current: PushChange = { ...planned, version: 3 };
    await db.$client.batch([versionGuard(db, own.id, current), marker]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM variables WHERE id = 'var_guard'").first("n")).toBe(1);
  });
});
