// Property-based bad input for every operation of /openapi.json and of the Novu API's
// /novu/openapi.json: random JSON, wrong types for the documented fields, huge strings, deep
// nesting, bad path and query parameters and wrong content types. Whatever comes in, the answer is
// never a 5xx, and every error is a problem document (Novu's error body under /novu).
import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, createWorkflow } from "../factories";

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: { $ref?: string; properties?: Record<string, unknown> } }> };
}
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
};

const fetchDocument = async (path: string) => (await (await SELF.fetch(`http://clarion.test${path}`)).json()) as Document;
const DOCUMENTS = [
  { prefix: "", document: await fetchDocument("/openapi.json") },
  { prefix: "/novu", document: await fetchDocument("/novu/openapi.json") },
];

/** The top-level field names of an operation's JSON body, so wrong values land on real fields. */
function bodyFields(document: Document, operation: Operation): string[] {
  const schema = operation.requestBody?.content["application/json"]?.schema;
  const named = schema?.$ref ? document.components?.schemas?.[schema.$ref.split("/").at(-1) ?? ""] : schema;
  return Object.keys(named?.properties ?? {});
}

/** JSON text nested `depth` levels deep: written as text, since JSON.stringify itself overflows on it. */
const deepText = (depth: number, kind: "object" | "array") =>
  kind === "object" ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`;

/** Edge values: what a careless handler turns into a 500. */
const edgeValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(null, true, 0, -1, 1e308, -0, "", " ", "\u0000", "\r\n", "💥", "%", "../../etc", "[object Object]"),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => "x".repeat(n)),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 200, maxLength: 2_000 }),
);

/** A body as JSON text: any JSON, an object whose documented fields hold edge values, or one nested very deep. */
const bodyFor = (fields: string[]) => {
  const field = fields.length ? fc.constantFrom(...fields) : fc.string({ maxLength: 8 });
  return fc.oneof(
    edgeValue.map((value) => JSON.stringify(value) ?? "null"),
    fc.dictionary(field, edgeValue, { minKeys: 1, maxKeys: Math.max(1, fields.length) }).map((value) => JSON.stringify(value)),
    fc
      .tuple(field, fc.integer({ min: 20, max: 150_000 }), fc.constantFrom("object" as const, "array" as const))
      .map(([name, depth, kind]) => `{${JSON.stringify(name)}:${deepText(depth, kind)}}`),
  );
};

const paramValue = fc.oneof(
  fc.string({ unit: "binary", maxLength: 64 }),
  fc.constantFrom("", ".", "..", "%", "%00", "a".repeat(5_000), "wf_0", "-1", "1e309", "null", "[]"),
);

const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/problem+json",
  "",
);

const rawBody = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.constantFrom("{", "[", '{"a":', "nul", "\uFEFF{}", "1e999999", '"\\ud800"', `${"[".repeat(100_000)}${"]".repeat(100_000)}`),
);

/**
 * Valid bodies of the operations that do the most with their input. Bad input that is otherwise
 * valid gets past validation to the code behind it, where random JSON never reaches.
 */
const SEEDS: Record<string, unknown> = {
  "POST /v1/trigger": { workflow: "fuzz", to: ["sub-1", { subscriberId: "sub-2", email: "a@example.com" }], payload: { a: { b: [1] } } },
  "POST /v1/trigger/bulk": {
    events: [{ workflow: "fuzz", to: "sub-1", payload: { a: 1 }, overrides: { email: { from: "a@example.com" } } }],
  },
  "POST /v1/trigger/broadcast": { workflow: "fuzz", payload: { a: { b: [1] } }, overrides: { email: { from: "a@example.com" } } },
  "POST /v1/workflows": {
    key: "fuzz-seed",
    name: "Seed",
    payloadSchema: { type: "object", properties: { a: { type: "string" } } },
    steps: [{ id: "m", type: "email", if: { all: [{ field: "payload.a", op: "exists" }] }, template: { subject: "Hi {{ payload.a }}" } }],
  },
  "POST /sub": { subscriberId: "seed", email: "a@example.com", firstName: "Ann", data: { a: [1] } },
  "POST /v1/integrations": {
    provider: "resend",
    credentials: { apiKey: "re_seed", from: "Acme <a@example.com>" },
    settings: { timeoutMs: 1000 },
  },
  "POST /v1/topics": { key: "seed", name: "Seed" },
  "POST /novu/v1/events/trigger": {
    name: "fuzz",
    to: ["sub-1", { subscriberId: "sub-2", email: "a@example.com", locale: "en_US" }, { type: "Topic", topicKey: "seed" }],
    payload: { a: { b: [1] } },
  },
  "POST /novu/v1/subscribers": {
    subscriberId: "seed",
    email: "a@example.com",
    channels: [{ providerId: "fcm", credentials: { deviceTokens: ["t"] } }],
  },
  "POST /novu/v2/topics/{key}/subscriptions": { subscriptions: ["sub-1", { subscriberId: "sub-2" }] },
};
SEEDS["PUT /v1/workflows/{key}"] = SEEDS["POST /v1/workflows"];

/** Every path to a value inside `value`, the root included. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const children = Array.isArray(value)
    ? value.map((v, i) => pathsOf(v, [...path, i]))
    : value && typeof value === "object"
      ? Object.entries(value).map(([k, v]) => pathsOf(v, [...path, k]))
      : [];
  return [path, ...children.flat()];
}

const HOLE = "\u0000hole\u0000";

/** `seed` as JSON text with the value at `path` replaced by `text`. */
function withAt(seed: unknown, path: (string | number)[], text: string): string {
  if (path.length === 0) return text;
  const copy = structuredClone(seed) as Record<string | number, unknown>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  parent[path.at(-1) as string | number] = HOLE;
  return JSON.stringify(copy).replace(JSON.stringify(HOLE), text);
}

/** A seed with one value, anywhere in it, replaced by an edge value or by very deep nesting. */
const mutatedSeed = (seed: unknown) =>
  fc
    .tuple(
      fc.constantFrom(...pathsOf(seed)),
      fc.oneof(
        edgeValue.map((value) => JSON.stringify(value) ?? "null"),
        fc
          .tuple(fc.integer({ min: 20, max: 150_000 }), fc.constantFrom("object" as const, "array" as const))
          .map(([d, k]) => deepText(d, k)),
      ),
    )
    .map(([path, text]) => withAt(seed, path, text));

const operations = DOCUMENTS.flatMap(({ prefix, document }) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${prefix}${path}`,
      method: method.toUpperCase(),
      path: `${prefix}${path}`,
      query: (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      fields: bodyFields(document, operation),
      hasBody: Boolean(operation.requestBody),
      seed: SEEDS[`${method.toUpperCase()} ${prefix}${path}`],
    })),
  ),
);

/** The path with each `{param}` replaced by a (percent-encoded) generated value. */
const fill = (path: string, values: string[]) => {
  let i = 0;
  return path.replaceAll(/\{\w+\}/g, () => encodeURIComponent(values[i++] ?? ""));
};

describe("every operation under bad input", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createEnvironment());
    await createWorkflow(key, { key: "fuzz" });
  });

  async function expectNoServerError(method: string, url: string, headers: Record<string, string>, body?: string) {
    const res = await SELF.fetch(`http://clarion.test${url}`, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : body,
    });
    const text = await res.text();
    const where = `${method} ${url.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
    expect(res.status, where).toBeLessThan(500);
    if (res.status >= 400 && url.startsWith("/novu/")) {
      expect(res.headers.get("content-type"), where).toMatch(/^application\/json/);
      expect(JSON.parse(text), where).toMatchObject({ statusCode: res.status, message: expect.any(String), code: expect.any(String) });
    } else if (res.status >= 400) {
      expect(res.headers.get("content-type"), where).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(text), where).toMatchObject({ status: res.status, code: expect.any(String) });
    }
  }

  it.each(operations)("$name never answers 5xx", async ({ method, path, query, fields, hasBody, seed }) => {
    const json = seed === undefined ? bodyFor(fields) : fc.oneof(bodyFor(fields), mutatedSeed(seed), mutatedSeed(seed));
    const params = (path.match(/\{\w+\}/g) ?? []).length;
    const queryNames = fc.oneof(fc.constantFrom(...(query.length ? query : ["limit"])), fc.string({ maxLength: 8 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(paramValue, { minLength: params, maxLength: params }),
        fc.dictionary(queryNames, paramValue, { maxKeys: 3 }),
        fc.oneof(
          json.map((text) => ({ text, type: "application/json" })),
          fc.record({ text: rawBody, type: contentType }),
        ),
        async (paramValues, queryValues, body) => {
          const search = new URLSearchParams(queryValues).toString();
          const url = `${fill(path, paramValues)}${search ? `?${search}` : ""}`;
          const headers: Record<string, string> = { authorization: `ApiKey ${key}` };
          if (body.type) headers["content-type"] = body.type;
          await expectNoServerError(method, url, headers, hasBody || method !== "GET" ? body.text : undefined);
        },
      ),
      { numRuns: 20, endOnFailure: true },
    );
  });
});
