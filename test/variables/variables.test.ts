import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { loadTemplateVariables } from "../../src/db/queries/variables";
import { SECRET_MASK, type Variable, type VariableList as Page, variableCursor } from "../../src/features/variables/schemas";
import type { Problem } from "../../src/lib/errors";
import { createEnvironment } from "../factories";
import { api } from "../request";

let key: string;
let environmentId: string;

beforeAll(async () => {
  ({ key, id: environmentId } = await createEnvironment());
});

const expectProblem = (res: { status: number; headers: Headers; body: unknown }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect((res.body as Problem).code).toBe(code);
};

describe("POST /v1/variables", () => {
  it("creates a plain variable and returns its value", async () => {
    const res = await api<Variable>(key, "POST", "/v1/variables", { key: "SUPPORT_EMAIL", value: "help@example.com" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ key: "SUPPORT_EMAIL", value: "help@example.com", secret: false });
    expect(res.body.id).toMatch(/^var_/);
  });

  it("masks a secret's value in its creation answer", async () => {
    const res = await api<Variable>(key, "POST", "/v1/variables", { key: "API_TOKEN", value: "s3cr3t-value", secret: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ key: "API_TOKEN", value: SECRET_MASK, secret: true });
    expect(JSON.stringify(res.body)).not.toContain("s3cr3t-value");
  });

  it("answers 409 variable_exists for a key taken in the environment", async () => {
    await api(key, "POST", "/v1/variables", { key: "DUP", value: "a" });
    const res = await api(key, "POST", "/v1/variables", { key: "DUP", value: "b" });
    expectProblem(res, 409, "variable_exists");
    expect((await api<Variable>(key, "GET", "/v1/variables/DUP")).body.value).toBe("a");
  });

  it("accepts a value of exactly 16 KiB", async () => {
    const res = await api(key, "POST", "/v1/variables", { key: "BIG", value: "x".repeat(16 * 1024) });
    expect(res.status).toBe(201);
  });

  it.each([
    ["a key starting with a digit", { key: "1ABC", value: "v" }, "key"],
    ["a key with a dash", { key: "A-B", value: "v" }, "key"],
    ["a key of 65 characters", { key: "K".repeat(65), value: "v" }, "key"],
    ["an empty key", { key: "", value: "v" }, "key"],
    ["a missing value", { key: "NO_VALUE" }, "value"],
    ["a numeric value", { key: "NUM", value: 42 }, "value"],
    ["a value over 16 KiB", { key: "HUGE", value: "x".repeat(16 * 1024 + 1) }, "value"],
    ["a value over 16 KiB in UTF-8 bytes", { key: "HUGE_UTF8", value: "é".repeat(8 * 1024 + 1) }, "value"],
    ["a non-boolean secret", { key: "S", value: "v", secret: "yes" }, "secret"],
    ["an unknown field", { key: "X", value: "v", extra: 1 }, "(root)"],
  ])("rejects %s with 422", async (_name, body, path) => {
    const res = await api<Problem>(key, "POST", "/v1/variables", body);
    expectProblem(res, 422, "validation_failed");
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("GET /v1/variables/{key}", () => {
  it("returns a plain variable's value", async () => {
    await api(key, "POST", "/v1/variables", { key: "COMPANY", value: "Acme" });
    const res = await api<Variable>(key, "GET", "/v1/variables/COMPANY");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: "COMPANY", value: "Acme", secret: false });
  });

  it("masks a secret's value", async () => {
    await api(key, "POST", "/v1/variables", { key: "GET_SECRET", value: "hidden-get", secret: true });
    const res = await api<Variable>(key, "GET", "/v1/variables/GET_SECRET");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: SECRET_MASK, secret: true });
  });

  it("answers 404 variable_not_found for an unknown key", async () => {
    expectProblem(await api(key, "GET", "/v1/variables/NOPE"), 404, "variable_not_found");
  });
});

describe("GET /v1/variables", () => {
  it("pages through variables by key with a cursor and masks secrets", async () => {
    const { key: own } = await createEnvironment();
    for (const k of ["C_VAR", "A_VAR", "B_VAR"])
      await api(own, "POST", "/v1/variables", { key: k, value: `v-${k}`, secret: k === "B_VAR" });

    const first = await api<Page>(own, "GET", "/v1/variables?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data.map((v) => [v.key, v.value])).toEqual([
      ["A_VAR", "v-A_VAR"],
      ["B_VAR", SECRET_MASK],
    ]);
    expect(first.body.nextCursor).toBe(variableCursor.encode(["B_VAR"]));

    const second = await api<Page>(own, "GET", `/v1/variables?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((v) => v.key)).toEqual(["C_VAR"]);
    expect(second.body.nextCursor).toBeNull();
    // The cursor of 0.12 (the key itself) still pages, until 0.14.
    expect((await api<Page>(own, "GET", "/v1/variables?limit=2&cursor=B_VAR")).body).toEqual(second.body);
  });

  it.each(["limit=0", "limit=101", "limit=abc"])("rejects %s with 422", async (query) => {
    expectProblem(await api(key, "GET", `/v1/variables?${query}`), 422, "validation_failed");
  });
});

describe("PUT /v1/variables/{key}", () => {
  it("changes a plain variable's value", async () => {
    await api(key, "POST", "/v1/variables", { key: "PUT_PLAIN", value: "old" });
    const res = await api<Variable>(key, "PUT", "/v1/variables/PUT_PLAIN", { value: "new" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: "PUT_PLAIN", value: "new", secret: false });
    expect((await api<Variable>(key, "GET", "/v1/variables/PUT_PLAIN")).body.value).toBe("new");
  });

  it("turns a plain variable secret and masks it from then on", async () => {
    await api(key, "POST", "/v1/variables", { key: "TO_SECRET", value: "was-plain" });
    const res = await api<Variable>(key, "PUT", "/v1/variables/TO_SECRET", { secret: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: SECRET_MASK, secret: true });
    expect((await api<Variable>(key, "GET", "/v1/variables/TO_SECRET")).body.value).toBe(SECRET_MASK);
  });

  it("masks a secret whose value changes", async () => {
    await api(key, "POST", "/v1/variables", { key: "ROTATE", value: "v1", secret: true });
    const res = await api<Variable>(key, "PUT", "/v1/variables/ROTATE", { value: "v2-rotated" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: SECRET_MASK, secret: true });
    expect((await loadTemplateVariables(createDb(env.DB), environmentId, env.ENCRYPTION_KEY)).vars).toMatchObject({ ROTATE: "v2-rotated" });
  });

  it("makes a secret plain when a new value comes with it", async () => {
    await api(key, "POST", "/v1/variables", { key: "TO_PLAIN", value: "hidden", secret: true });
    const res = await api<Variable>(key, "PUT", "/v1/variables/TO_PLAIN", { secret: false, value: "public" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: "public", secret: false });
  });

  it("refuses to make a secret plain without a new value, which would reveal it", async () => {
    await api(key, "POST", "/v1/variables", { key: "STAY_SECRET", value: "never-shown", secret: true });
    const res = await api<Problem>(key, "PUT", "/v1/variables/STAY_SECRET", { secret: false });
    expectProblem(res, 422, "validation_failed");
    expect(JSON.stringify(res.body)).not.toContain("never-shown");
    expect((await api<Variable>(key, "GET", "/v1/variables/STAY_SECRET")).body).toMatchObject({ value: SECRET_MASK, secret: true });
  });

  it("answers 404 variable_not_found for an unknown key", async () => {
    expectProblem(await api(key, "PUT", "/v1/variables/MISSING", { value: "x" }), 404, "variable_not_found");
  });

  it.each([
    ["an empty body", {}],
    ["a key change", { key: "OTHER", value: "x" }],
    ["a numeric value", { value: 1 }],
    ["a value over 16 KiB", { value: "x".repeat(16 * 1024 + 1) }],
  ])("rejects %s with 422", async (_name, body) => {
    await api(key, "POST", "/v1/variables", { key: "PUT_BAD", value: "x" });
    expectProblem(await api(key, "PUT", "/v1/variables/PUT_BAD", body), 422, "validation_failed");
  });
});

describe("DELETE /v1/variables/{key}", () => {
  it("deletes a variable, which then reads as 404", async () => {
    await api(key, "POST", "/v1/variables", { key: "GONE", value: "x" });
    const res = await api(key, "DELETE", "/v1/variables/GONE");
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectProblem(await api(key, "GET", "/v1/variables/GONE"), 404, "variable_not_found");
  });

  it("answers 404 variable_not_found for an unknown key", async () => {
    expectProblem(await api(key, "DELETE", "/v1/variables/NEVER_WAS"), 404, "variable_not_found");
  });
});

describe("environment isolation", () => {
  it("keeps one environment's variables out of another's reach", async () => {
    const a = await createEnvironment();
    const b = await createEnvironment();
    await api(a.key, "POST", "/v1/variables", { key: "SHARED_NAME", value: "from-a" });

    expectProblem(await api(b.key, "GET", "/v1/variables/SHARED_NAME"), 404, "variable_not_found");
    expectProblem(await api(b.key, "PUT", "/v1/variables/SHARED_NAME", { value: "hijack" }), 404, "variable_not_found");
    expectProblem(await api(b.key, "DELETE", "/v1/variables/SHARED_NAME"), 404, "variable_not_found");
    expect((await api<Page>(b.key, "GET", "/v1/variables")).body.data).toEqual([]);

    const inB = await api<Variable>(b.key, "POST", "/v1/variables", { key: "SHARED_NAME", value: "from-b" });
    expect(inB.status).toBe(201);
    expect((await api<Variable>(a.key, "GET", "/v1/variables/SHARED_NAME")).body.value).toBe("from-a");
  });
});

describe("loadTemplateVariables", () => {
  it("gives every variable of the environment in clear, secrets included, and nothing of others", async () => {
    const a = await createEnvironment();
    const b = await createEnvironment();
    await api(a.key, "POST", "/v1/variables", { key: "PLAIN", value: "p" });
    await api(a.key, "POST", "/v1/variables", { key: "SECRET", value: "s", secret: true });
    await api(b.key, "POST", "/v1/variables", { key: "OTHER", value: "o" });

    const db = createDb(env.DB);
    expect((await loadTemplateVariables(db, a.id, env.ENCRYPTION_KEY)).vars).toEqual({ PLAIN: "p", SECRET: "s" });
    expect((await loadTemplateVariables(db, b.id, env.ENCRYPTION_KEY)).vars).toEqual({ OTHER: "o" });
  });

  it("lists the clear values of the secret ones apart, to redact them", async () => {
    const { id, key } = await createEnvironment();
    await api(key, "POST", "/v1/variables", { key: "PLAIN", value: "plain-value" });
    await api(key, "POST", "/v1/variables", { key: "SECRET", value: "secret-value", secret: true });
    expect((await loadTemplateVariables(createDb(env.DB), id, env.ENCRYPTION_KEY)).secrets).toEqual(["secret-value"]);
  });

  it("leaves out a secret whose ciphertext was copied from another variable", async () => {
    const { id, key } = await createEnvironment();
    await api(key, "POST", "/v1/variables", { key: "MINE", value: "mine-value", secret: true });
    await api(key, "POST", "/v1/variables", { key: "THEIRS", value: "their-value", secret: true });
    await env.DB.prepare(
      "UPDATE variables SET value = (SELECT value FROM variables WHERE environment_id = ?1 AND key = 'THEIRS') WHERE environment_id = ?1 AND key = 'MINE'",
    )
      .bind(id)
      .run();
    expect((await loadTemplateVariables(createDb(env.DB), id, env.ENCRYPTION_KEY)).vars).toEqual({ THEIRS: "their-value" });
  });

  it("gives an empty record to an environment without variables", async () => {
    const { id } = await createEnvironment();
    expect((await loadTemplateVariables(createDb(env.DB), id, env.ENCRYPTION_KEY)).vars).toEqual({});
  });
});

describe("secret variables at rest", () => {
  const storedValue = (environmentId: string, key: string) =>
    env.DB.prepare("SELECT value, secret FROM variables WHERE environment_id = ? AND key = ?")
      .bind(environmentId, key)
      .first<{ value: string; secret: number }>();

  it("keeps a secret's value encrypted in D1 and plain values as they are", async () => {
    const { id, key } = await createEnvironment();
    await api(key, "POST", "/v1/variables", { key: "TOKEN", value: "tok-very-secret", secret: true });
    await api(key, "POST", "/v1/variables", { key: "BRAND", value: "Acme" });
    const secret = await storedValue(id, "TOKEN");
    expect(secret!.value).toMatch(/^v2\./);
    expect(secret!.value).not.toContain("tok-very-secret");
    expect((await storedValue(id, "BRAND"))!.value).toBe("Acme");
  });

  it("re-encodes the stored value when the secret flag changes", async () => {
    const { id, key } = await createEnvironment();
    await api(key, "POST", "/v1/variables", { key: "FLIP", value: "first" });
    expect((await api(key, "PUT", "/v1/variables/FLIP", { secret: true })).status).toBe(200);
    expect((await storedValue(id, "FLIP"))!.value).toMatch(/^v2\./);
    expect((await loadTemplateVariables(createDb(env.DB), id, env.ENCRYPTION_KEY)).vars).toEqual({ FLIP: "first" });

    expect((await api(key, "PUT", "/v1/variables/FLIP", { secret: false, value: "second" })).status).toBe(200);
    expect(await storedValue(id, "FLIP")).toEqual({ value: "second", secret: 0 });

    expect((await api(key, "PUT", "/v1/variables/FLIP", { secret: true, value: "third" })).status).toBe(200);
    expect((await api(key, "PUT", "/v1/variables/FLIP", { value: "fourth" })).status).toBe(200);
    expect((await storedValue(id, "FLIP"))!.value).toMatch(/^v2\./);
    expect((await loadTemplateVariables(createDb(env.DB), id, env.ENCRYPTION_KEY)).vars).toEqual({ FLIP: "fourth" });
  });
});
