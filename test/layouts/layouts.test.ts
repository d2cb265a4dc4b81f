import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { api, expectProblem } from "../request";

let environment: { id: string; key: string; slug: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

type Json = Record<string, unknown>;
const call = <T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api<T>(environment.key, method, path, body, { headers });

const layout = (key: string, overrides: Json = {}) => ({ key, name: "Frame", html: "<main>{{ content }}</main>", ...overrides });
const partial = (key: string, content: string, type = "html") => ({ key, name: key, content, type });
const key = (prefix: string) => unique(prefix).toLowerCase();

describe("POST /v1/layouts", () => {
  it("creates a layout at version 1 with its ETag", async () => {
    const k = key("lay");
    const res = await call("POST", "/v1/layouts", layout(k, { text: "-- {{ content }} --" }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ key: k, name: "Frame", text: "-- {{ content }} --", isDefault: false, version: 1, description: null });
    expect(res.headers.get("etag")).toBe('"1"');
  });

  it.each([
    ["html without {{ content }}", { html: "<main></main>" }, "html"],
    ["html with {{ content }} twice", { html: "{{ content }}{{content}}" }, "html"],
    ["text without {{ content }}", { text: "plain" }, "text"],
  ])("refuses %s with layout_content_missing", async (_name, overrides, path) => {
    const res = await call("POST", "/v1/layouts", layout(key("lay"), overrides));
    const problem = expectProblem(res, 422, "layout_content_missing");
    expect(problem.errors).toEqual([expect.objectContaining({ path })]);
  });

  it("parses its Liquid at save", async () => {
    const res = await call("POST", "/v1/layouts", layout(key("lay"), { html: "{% if x %}{{ content }}" }));
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([expect.objectContaining({ path: "html" })]);
  });

  it("refuses an unknown partial with its path", async () => {
    const res = await call("POST", "/v1/layouts", layout(key("lay"), { html: '{{ content }}{% render "nope-missing" %}' }));
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([
      { path: "html", message: expect.stringContaining('"nope-missing"') },
    ]);
  });

  it("moves the default flag, as a new version of the layout that had it", async () => {
    const env = await createEnvironment();
    const a = await api(env.key, "POST", "/v1/layouts", layout("a", { isDefault: true }));
    expect(a.status).toBe(201);
    const b = await api(env.key, "POST", "/v1/layouts", layout("b", { isDefault: true }));
    expect(b.status).toBe(201);
    const list = await api<{ data: { key: string; isDefault: boolean; version: number }[] }>(env.key, "GET", "/v1/layouts");
    expect(list.body.data.map((l) => [l.key, l.isDefault, l.version])).toEqual([
      ["a", false, 2],
      ["b", true, 1],
    ]);
  });
});

describe("PUT, versions, diff and revert", () => {
  it("keeps every version, diffs them as RFC 6902 and reverts", async () => {
    const k = key("lay");
    await call("POST", "/v1/layouts", layout(k));
    const put = await call("PUT", `/v1/layouts/${k}`, layout(k, { html: "<div>{{ content }}</div>" }), { "if-match": '"1"' });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe('"2"');

    const stale = await call("PUT", `/v1/layouts/${k}`, layout(k, { name: "Other" }), { "if-match": '"1"' });
    expectProblem(stale, 412, "layout_changed");

    const diff = await call<Json>("GET", `/v1/layouts/${k}/diff?from=1&to=2`);
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      patch: [{ op: "replace", path: "/html", value: "<div>{{ content }}</div>" }],
      fields: ["html"],
    });
    const versions = await call<{ data: { version: number; action: string }[] }>("GET", `/v1/layouts/${k}/versions`);
    expect(versions.body.data.map((v) => [v.version, v.action])).toEqual([
      [2, "updated"],
      [1, "created"],
    ]);
    const revert = await call<Json>("POST", `/v1/layouts/${k}/revert`, { version: 1 });
    expect(revert.body).toMatchObject({ html: "<main>{{ content }}</main>", version: 3 });
    expect((await call<Json>("GET", `/v1/layouts/${k}/versions/3`)).body).toMatchObject({ action: "reverted" });
    expectProblem(await call("GET", `/v1/layouts/${k}/versions/9`), 404, "layout_version_not_found");
  });

  it("refuses a new key with layout_key_immutable", async () => {
    const k = key("lay");
    await call("POST", "/v1/layouts", layout(k));
    const res = await call("PUT", `/v1/layouts/${k}`, layout(`${k}-2`));
    expect(expectProblem(res, 422, "layout_key_immutable").errors).toEqual([expect.objectContaining({ path: "key" })]);
  });

  it("writes every change to the audit log", async () => {
    const k = key("lay");
    await call("POST", "/v1/layouts", layout(k));
    await call("PUT", `/v1/layouts/${k}`, layout(k, { name: "Renamed" }));
    await call("DELETE", `/v1/layouts/${k}`);
    const audit = await call<{ data: { resource: string; resourceId: string; action: string }[] }>(
      "GET",
      `/v1/audit-log?resource=layout&resourceId=${k}`,
    );
    expect(audit.body.data.filter((e) => e.resourceId === k).map((e) => e.action)).toEqual(["deleted", "updated", "created"]);
  });
});

describe("DELETE /v1/layouts/{key}", () => {
  it("is refused with layout_in_use while a workflow names it", async () => {
    const k = key("lay");
    await call("POST", "/v1/layouts", layout(k));
    const wf = key("wf");
    const created = await call("POST", "/v1/workflows", {
      key: wf,
      name: "W",
      steps: [{ id: "mail", type: "email", layout: k, template: { subject: "Hi", html: "<p>x</p>" } }],
    });
    expect(created.status).toBe(201);
    const res = await call("DELETE", `/v1/layouts/${k}`);
    expect(expectProblem(res, 409, "layout_in_use").errors).toEqual([expect.objectContaining({ path: `workflows.${wf}` })]);
  });

  it("refuses a workflow naming an unknown layout", async () => {
    const res = await call("POST", "/v1/workflows", {
      key: key("wf"),
      name: "W",
      steps: [{ id: "mail", type: "email", layout: "no-such-layout", template: { subject: "Hi", html: "<p>x</p>" } }],
    });
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([expect.objectContaining({ path: "steps.0.layout" })]);
  });
});

describe("partials at save", () => {
  it("refuses a cycle with the field path", async () => {
    const a = key("pa");
    const b = key("pb");
    expect((await call("POST", "/v1/partials", partial(a, "A"))).status).toBe(201);
    expect((await call("POST", "/v1/partials", partial(b, `{% render "${a}" %}`))).status).toBe(201);
    const res = await call("PUT", `/v1/partials/${a}`, partial(a, `{% render "${b}" %}`));
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([{ path: "content", message: expect.stringMatching(/cycle/) }]);
  });

  it("refuses a partial rendering itself", async () => {
    const a = key("pa");
    const res = await call("POST", "/v1/partials", partial(a, `{% render "${a}" %}`));
    expect(expectProblem(res, 422, "validation_failed").errors?.[0]?.message).toMatch(/cycle/);
  });

  it("allows 5 levels and refuses a 6th", async () => {
    const keys = Array.from({ length: 6 }, (_, i) => key(`d${i}`));
    // keys[4] is the innermost of five: keys[0] → keys[1] → ... → keys[4].
    for (let i = 4; i >= 0; i--) {
      const content = i === 4 ? "bottom" : `{% render "${keys[i + 1]}" %}`;
      expect((await call("POST", "/v1/partials", partial(keys[i]!, content))).status).toBe(201);
    }
    const res = await call("POST", "/v1/partials", partial(keys[5]!, `{% render "${keys[0]}" %}`));
    expect(expectProblem(res, 422, "validation_failed").errors?.[0]?.message).toMatch(/5 deep/);
  });

  it("refuses an unknown partial in a workflow's template, with its path", async () => {
    const res = await call("POST", "/v1/workflows", {
      key: key("wf"),
      name: "W",
      steps: [{ id: "mail", type: "email", template: { subject: "Hi", html: '<p>{% render "ghost-partial" %}</p>' } }],
    });
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([
      { path: "steps.0.template.html", message: expect.stringContaining("ghost-partial") },
    ]);
  });

  it("refuses a partial named by a variable, and include", async () => {
    expect((await call("POST", "/v1/partials", partial(key("pv"), "{% render name %}"))).status).toBe(422);
    expect((await call("POST", "/v1/partials", partial(key("pi"), '{% include "x" %}'))).status).toBe(422);
  });

  it("answers 404 to deleting a partial under a key no partial can have, however long", async () => {
    // With a workflow to compare it to, a key this long is a LIKE pattern D1 refuses to evaluate.
    const steps = [{ id: "mail", type: "email", layout: null, template: { subject: "Hi", html: "<p>x</p>" } }];
    expect((await call("POST", "/v1/workflows", { key: key("wf"), name: "W", steps })).status).toBe(201);
    expectProblem(await call("DELETE", `/v1/partials/${"a".repeat(5_000)}`), 404, "partial_not_found");
  });

  it("refuses deleting a partial another renders (partial_in_use)", async () => {
    const a = key("pa");
    const b = key("pb");
    await call("POST", "/v1/partials", partial(a, "A"));
    await call("POST", "/v1/partials", partial(b, `{% render "${a}" %}`));
    const res = await call("DELETE", `/v1/partials/${a}`);
    expect(expectProblem(res, 409, "partial_in_use").errors).toEqual([expect.objectContaining({ path: `partials.${b}.content` })]);
    expect((await call("DELETE", `/v1/partials/${b}`)).status).toBe(204);
    expect((await call("DELETE", `/v1/partials/${a}`)).status).toBe(204);
  });
});

describe("POST /v1/workflows/{key}/revert", () => {
  it("refuses a version whose layout and partial were deleted since, with their paths, and changes nothing", async () => {
    const [wf, frame, sig] = [key("wf"), key("frame"), key("sig")];
    expect((await call("POST", "/v1/partials", partial(sig, "-- us"))).status).toBe(201);
    expect((await call("POST", "/v1/layouts", layout(frame))).status).toBe(201);
    const step = (over: Json) => ({ id: "mail", type: "email", template: { subject: "Hi", html: "<p>x</p>" }, ...over });
    const framed = step({ layout: frame, template: { subject: "Hi", html: `<p>x</p>{% render "${sig}" %}` } });
    expect((await call("POST", "/v1/workflows", { key: wf, name: "W", steps: [framed] })).status).toBe(201);
    expect((await call("PUT", `/v1/workflows/${wf}`, { key: wf, name: "W", steps: [step({ layout: null })] })).status).toBe(200);
    expect((await call("DELETE", `/v1/layouts/${frame}`)).status).toBe(204);
    expect((await call("DELETE", `/v1/partials/${sig}`)).status).toBe(204);

    const problem = expectProblem(await call("POST", `/v1/workflows/${wf}/revert`, { version: 1 }), 422, "validation_failed");
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "steps.0.layout" }),
        { path: "steps.0.template.html", message: expect.stringContaining(sig) },
      ]),
    );
    expect((await call<{ version: number }>("GET", `/v1/workflows/${wf}`)).body.version).toBe(2);
  });
});

describe("POST /v1/layouts/{key}/revert and /v1/partials/{key}/revert", () => {
  it("refuses a layout version whose partial was deleted since (422 with the path), and changes nothing", async () => {
    const [frame, sig] = [key("frame"), key("sig")];
    expect((await call("POST", "/v1/partials", partial(sig, "-- us"))).status).toBe(201);
    expect((await call("POST", "/v1/layouts", layout(frame, { html: `<main>{{ content }}{% render "${sig}" %}</main>` }))).status).toBe(
      201,
    );
    expect((await call("PUT", `/v1/layouts/${frame}`, layout(frame))).status).toBe(200);
    expect((await call("DELETE", `/v1/partials/${sig}`)).status).toBe(204);

    const problem = expectProblem(await call("POST", `/v1/layouts/${frame}/revert`, { version: 1 }), 422, "validation_failed");
    expect(problem.errors).toEqual([{ path: "html", message: expect.stringContaining(sig) }]);
    expect((await call<{ version: number }>("GET", `/v1/layouts/${frame}`)).body.version).toBe(2);
  });

  it("refuses a partial version that would close a cycle (422), and changes nothing", async () => {
    const [a, b] = [key("pa"), key("pb")];
    expect((await call("POST", "/v1/partials", partial(b, "B"))).status).toBe(201);
    expect((await call("POST", "/v1/partials", partial(a, `{% render "${b}" %}`))).status).toBe(201);
    expect((await call("PUT", `/v1/partials/${a}`, partial(a, "A"))).status).toBe(200);
    expect((await call("PUT", `/v1/partials/${b}`, partial(b, `{% render "${a}" %}`))).status).toBe(200);

    const problem = expectProblem(await call("POST", `/v1/partials/${a}/revert`, { version: 1 }), 422, "validation_failed");
    expect(problem.errors).toEqual([{ path: "content", message: expect.stringMatching(/cycle/i) }]);
    expect((await call<{ version: number }>("GET", `/v1/partials/${a}`)).body.version).toBe(2);
  });
});

describe("layouts and partials inside branch paths", () => {
  const inBranch = (step: Json, otherwise = false) => ({
    id: "route",
    type: "branch",
    paths: [{ id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: otherwise ? [] : [step] }],
    ...(otherwise ? { default: { steps: [step] } } : {}),
  });

  it("a layout named only inside a branch's default is in use", async () => {
    const k = key("lay");
    await call("POST", "/v1/layouts", layout(k));
    const wf = key("wf");
    const mail = { id: "mail", type: "email", layout: k, template: { subject: "Hi", html: "<p>x</p>" } };
    expect((await call("POST", "/v1/workflows", { key: wf, name: "W", steps: [inBranch(mail, true)] })).status).toBe(201);
    const res = await call("DELETE", `/v1/layouts/${k}`);
    expect(expectProblem(res, 409, "layout_in_use").errors).toEqual([expect.objectContaining({ path: `workflows.${wf}` })]);
  });

  it("refuses an unknown layout or partial inside a branch path, with the nested path", async () => {
    const mail = { id: "mail", type: "email", layout: "no-such-layout", template: { subject: "Hi", html: '{% render "ghost-partial" %}' } };
    const res = await call("POST", "/v1/workflows", { key: key("wf"), name: "W", steps: [inBranch(mail)] });
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([
      expect.objectContaining({ path: "steps.0.paths.0.steps.0.layout" }),
      { path: "steps.0.paths.0.steps.0.template.html", message: expect.stringContaining("ghost-partial") },
    ]);
  });

  it("a partial rendered only inside a branch path is in use", async () => {
    const p = key("pa");
    expect((await call("POST", "/v1/partials", partial(p, "-- us"))).status).toBe(201);
    const wf = key("wf");
    const mail = { id: "mail", type: "email", layout: null, template: { subject: "Hi", html: `{% render "${p}" %}` } };
    expect((await call("POST", "/v1/workflows", { key: wf, name: "W", steps: [inBranch(mail)] })).status).toBe(201);
    const res = await call("DELETE", `/v1/partials/${p}`);
    expect(expectProblem(res, 409, "partial_in_use").errors).toEqual([
      expect.objectContaining({ path: `workflows.${wf}.steps.0.paths.0.steps.0.template.html` }),
    ]);
  });
});
