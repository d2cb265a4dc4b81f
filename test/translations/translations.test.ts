import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, workflowBody } from "../factories";
import { auditLog } from "../audit/helpers";
import { api, expectProblem } from "../request";

const put = (key: string, locale: string, keys: unknown) => api(key, "PUT", `/v1/translations/${locale}`, { keys });

const EN = {
  welcome: { subject: "Welcome, {{ name }}", body: "Hello" },
  cart: { items: { one: "{{ count }} item", other: "{{ count }} items" } },
};

describe("PUT and GET /v1/translations/{locale}", () => {
  it("takes nested keys, stores them flat and answers them nested, in the locale's canonical case", async () => {
    const { key } = await createSandboxEnvironment();
    const saved = await put(key, "pt-br", EN);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ locale: "pt-BR", keyCount: 3, version: 1, keys: EN });
    // Dotted keys are the same keys: an unchanged body is no new version.
    const dotted = await put(key, "pt-BR", {
      "welcome.subject": "Welcome, {{ name }}",
      "welcome.body": "Hello",
      "cart.items": { one: "{{ count }} item", other: "{{ count }} items" },
    });
    expect(dotted.body).toMatchObject({ version: 1 });
    expect((await api(key, "GET", "/v1/translations/PT-br")).body).toMatchObject({ locale: "pt-BR", keys: EN });
    const list = await api(key, "GET", "/v1/translations");
    expect(list.body).toMatchObject({ defaultLocale: "en", data: [{ locale: "pt-BR", keyCount: 3, version: 1 }] });
  });

  it.each([
    ["an invalid locale", "en_US", EN, "locale"],
    ["a word that is not a locale", "english", EN, "locale"],
    ["a number as a text", "en", { a: 1 }, "keys.a"],
    ["a key that is both a text and a group", "en", { a: "x", "a.b": "y" }, "keys.a"],
    ["a text that is not Liquid", "en", { a: "{{ unclosed" }, "keys.a"],
    ["a plural form that is not Liquid", "en", { a: { one: "{% if %}", other: "x" } }, "keys.a.one"],
    ["a key part with a space", "en", { "a b": "x" }, "keys.a b"],
  ])("refuses %s with 422 and the field's path", async (_what, locale, keys, path) => {
    const { key } = await createSandboxEnvironment();
    const problem = expectProblem(await put(key, locale, keys), 422, "validation_failed");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("answers 404 for a locale without translations", async () => {
    const { key } = await createSandboxEnvironment();
    expectProblem(await api(key, "GET", "/v1/translations/fr"), 404, "translation_not_found");
    expectProblem(await api(key, "DELETE", "/v1/translations/fr"), 404, "translation_not_found");
  });
});

describe("translation versions", () => {
  it("keeps every version, diffs two, and survives a delete and a new start", async () => {
    const { key } = await createSandboxEnvironment();
    await put(key, "de", { a: "eins", b: "zwei" });
    await put(key, "de", { a: "eins", b: "drei", c: "vier" });
    const diff = await api(key, "GET", "/v1/translations/de/diff?from=1&to=2");
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      patch: [
        { op: "replace", path: "/b", value: "drei" },
        { op: "add", path: "/c", value: "vier" },
      ],
    });
    expect((await api(key, "DELETE", "/v1/translations/de")).status).toBe(204);
    expect((await put(key, "de", { a: "neu" })).body).toMatchObject({ version: 4 });
    const versions = await api<{ data: { version: number; action: string; keys: unknown }[] }>(key, "GET", "/v1/translations/de/versions");
    expect(versions.body.data.map((v) => [v.version, v.action])).toEqual([
      [4, "created"],
      [3, "deleted"],
      [2, "updated"],
      [1, "created"],
    ]);
    expect((await api(key, "GET", "/v1/translations/de/versions/1")).body).toMatchObject({ keys: { a: "eins", b: "zwei" } });
    expectProblem(await api(key, "GET", "/v1/translations/de/versions/9"), 404, "translation_version_not_found");
  });

  it("restores a version as a new one, and honours If-Match on save, restore and delete (412 with the current ETag)", async () => {
    const { key } = await createSandboxEnvironment();
    await put(key, "de", { a: "eins" });
    await put(key, "de", { a: "eins", b: "zwei" });
    const read = await api(key, "GET", "/v1/translations/de");
    expect(read.headers.get("etag")).toBe('"2"');
    const stalePut = await api(key, "PUT", "/v1/translations/de", { keys: { a: "x" } }, { headers: { "if-match": '"1"' } });
    expectProblem(stalePut, 412, "translation_changed");
    expect(stalePut.headers.get("etag")).toBe('"2"');
    expectProblem(
      await api(key, "POST", "/v1/translations/de/revert", { version: 1 }, { headers: { "if-match": '"1"' } }),
      412,
      "translation_changed",
    );
    const restored = await api(key, "POST", "/v1/translations/de/revert", { version: 1 }, { headers: { "if-match": '"2"' } });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, keys: { a: "eins" } });
    expect(restored.headers.get("etag")).toBe('"3"');
    const versions = await api<{ data: { version: number; action: string }[] }>(key, "GET", "/v1/translations/de/versions");
    expect(versions.body.data[0]).toMatchObject({ version: 3, action: "reverted" });
    expectProblem(
      await api(key, "DELETE", "/v1/translations/de", undefined, { headers: { "if-match": '"2"' } }),
      412,
      "translation_changed",
    );
    expect((await api(key, "DELETE", "/v1/translations/de", undefined, { headers: { "if-match": '"3"' } })).status).toBe(204);
    // A deletion is no state to restore; the version before it is, and brings the locale back.
    expectProblem(await api(key, "POST", "/v1/translations/de/revert", { version: 4 }), 404, "translation_version_not_found");
    expect((await api(key, "POST", "/v1/translations/de/revert", { version: 2 })).body).toMatchObject({ keys: { a: "eins", b: "zwei" } });
  });

  it("audits every change", async () => {
    const { key } = await createSandboxEnvironment();
    await put(key, "it", { a: "uno" });
    await put(key, "it", { a: "due" });
    await api(key, "DELETE", "/v1/translations/it");
    await api(key, "PUT", "/v1/translations/settings", { defaultLocale: "it" });
    const entries = (await auditLog(key)).body.data.filter((e) => e.resource === "translation" || e.resource === "translation_settings");
    expect(entries.map((e) => [e.resource, e.action])).toEqual([
      ["translation_settings", "updated"],
      ["translation", "deleted"],
      ["translation", "updated"],
      ["translation", "created"],
    ]);
  });
});

describe("GET /v1/translations/status", () => {
  it("lists per locale the default's keys it lacks and those whose default text changed after its own", async () => {
    const { key } = await createSandboxEnvironment();
    await put(key, "en", { a: "A", b: "B", c: "C" });
    await put(key, "fr", { a: "A-fr", b: "B-fr" });
    await put(key, "en", { a: "A changed", b: "B", c: "C" });
    await put(key, "de", { a: "A-de" });
    const status = await api(key, "GET", "/v1/translations/status");
    expect(status.body).toEqual({
      defaultLocale: "en",
      keys: ["a", "b", "c"],
      locales: [
        { locale: "de", missing: ["b", "c"], outdated: [] },
        { locale: "fr", missing: ["c"], outdated: ["a"] },
      ],
    });
    // Translating it again brings it up to date.
    await put(key, "fr", { a: "A-fr 2", b: "B-fr", c: "C-fr" });
    const after = await api<{ locales: { locale: string; missing: string[]; outdated: string[] }[] }>(
      key,
      "GET",
      "/v1/translations/status",
    );
    expect(after.body.locales.find((l) => l.locale === "fr")).toEqual({ locale: "fr", missing: [], outdated: [] });
  });
});

describe("a workflow's t keys", () => {
  const steps = [
    {
      id: "mail",
      type: "email",
      template: { subject: '{{ "welcome.subject" | t: name: subscriber.firstName }}', text: '{{ "nope.key" | t }}' },
    },
  ];

  it("inside a branch path must exist too (422 with the nested field path)", async () => {
    const { key } = await createSandboxEnvironment();
    const inner = { id: "text", type: "sms", template: { body: '{{ "branch.only" | t }}' } };
    const branch = {
      id: "route",
      type: "branch",
      paths: [{ id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: [inner] }],
    };
    const problem = expectProblem(
      await api(key, "POST", "/v1/workflows", workflowBody({ steps: [branch] })),
      422,
      "translation_key_missing",
    );
    expect(problem.errors).toEqual([
      { path: "steps.0.paths.0.steps.0.template.body", message: 'No key "branch.only" in the default locale "en".' },
    ]);
  });

  it("must exist in the default locale when the workflow is saved (422 with the field path and the key)", async () => {
    const { key } = await createSandboxEnvironment();
    const body = workflowBody({ steps });
    const problem = expectProblem(await api(key, "POST", "/v1/workflows", body), 422, "translation_key_missing");
    expect(problem.errors).toEqual([
      { path: "steps.0.template.subject", message: 'No key "welcome.subject" in the default locale "en".' },
      { path: "steps.0.template.text", message: 'No key "nope.key" in the default locale "en".' },
    ]);
    // A key only another locale has does not count.
    await put(key, "de", { welcome: { subject: "x" }, nope: { key: "y" } });
    expectProblem(await api(key, "POST", "/v1/workflows", body), 422, "translation_key_missing");
    await put(key, "en", { welcome: { subject: "Welcome" }, nope: { key: "Nope" } });
    expect((await api(key, "POST", "/v1/workflows", body)).status).toBe(201);
    // A save that adds a missing key is refused too, and after the default locale changes, its keys count.
    const edited = { ...body, steps: [{ ...steps[0], template: { subject: '{{ "other.key" | t }}', text: "Hi" } }] };
    expectProblem(await api(key, "PUT", `/v1/workflows/${body.key}`, edited), 422, "translation_key_missing");
    await api(key, "PUT", "/v1/translations/settings", { defaultLocale: "de" });
    await put(key, "de", { other: { key: "Anderes" } });
    expect((await api(key, "PUT", `/v1/workflows/${body.key}`, edited)).status).toBe(200);
  });

  it("must exist when a revert makes an old version current again (422, nothing changes)", async () => {
    const { key } = await createSandboxEnvironment();
    await put(key, "en", { welcome: { subject: "Welcome" }, nope: { key: "Nope" } });
    const body = workflowBody({ steps });
    expect((await api(key, "POST", "/v1/workflows", body)).status).toBe(201);
    const plain = { ...body, steps: [{ ...steps[0], template: { subject: "Hi", text: "Hi" } }] };
    expect((await api(key, "PUT", `/v1/workflows/${body.key}`, plain)).status).toBe(200);
    // The keys go once no workflow uses them; version 1 still does.
    await put(key, "en", { other: "x" });
    const problem = expectProblem(
      await api(key, "POST", `/v1/workflows/${body.key}/revert`, { version: 1 }),
      422,
      "translation_key_missing",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["steps.0.template.subject", "steps.0.template.text"]);
    expect((await api<{ version: number }>(key, "GET", `/v1/workflows/${body.key}`)).body.version).toBe(2);
  });

  it("must exist when a layout or partial that uses them is saved (422 with the field and the key)", async () => {
    const { key } = await createSandboxEnvironment();
    const partial = { key: "footer", name: "Footer", type: "html", content: '<small>{{ "footer.note" | t }}</small>' };
    const layout = { key: "frame", name: "Frame", html: '<main>{{ content }}</main>{{ "footer.note" | t }}' };
    const refused = expectProblem(await api(key, "POST", "/v1/partials", partial), 422, "translation_key_missing");
    expect(refused.errors).toEqual([{ path: "content", message: 'No key "footer.note" in the default locale "en".' }]);
    const framed = expectProblem(await api(key, "POST", "/v1/layouts", layout), 422, "translation_key_missing");
    expect(framed.errors).toEqual([{ path: "html", message: 'No key "footer.note" in the default locale "en".' }]);
    await put(key, "en", { footer: { note: "Sent by Acme" } });
    expect((await api(key, "POST", "/v1/partials", partial)).status).toBe(201);
    expect((await api(key, "POST", "/v1/layouts", layout)).status).toBe(201);
  });
});
