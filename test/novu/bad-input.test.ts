// Every operation of /novu/openapi.json, so a new Novu route cannot skip them: bad input is a 4xx in
// Novu's error body (what Novu's SDKs turn into their typed errors), never a 500 and never a
// problem document, whoever the client is.
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { type ApiResponse, api } from "../request";
import { novu } from "./client";

interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  "x-error-codes": string[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type Document = { paths: Record<string, Record<string, Operation>>; servers: { url: string }[] };

const document = (await (await SELF.fetch("http://clarion.test/novu/openapi.json")).json()) as Document;
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    operation,
  })),
);
const withBody = operations.filter((o) => o.operation.requestBody?.content["application/json"]);
/** All but the Inbox's session start, which is how a browser without a credential gets one. */
const secured = operations.filter((o) => o.operation.security?.length);
/** Those an environment key opens; the Inbox's (a session token's) are covered by test/novu/inbox.test.ts. */
const keyed = secured.filter((o) => o.operation.security?.some((s) => typeof s === "object" && s !== null && "ApiKey" in s));

/** The path with its `{params}` filled from `values`, or with a placeholder. */
const fill = (path: string, values: Record<string, string> = {}) =>
  path.replaceAll(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "no-such-thing"));

/** Novu's error body with the status it is sent with; its `code` is returned. */
function expectNovuError(res: ApiResponse<unknown>): string {
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = res.body as Record<string, unknown>;
  expect(body).toMatchObject({
    statusCode: res.status,
    message: expect.any(String),
    error: expect.any(String),
    code: expect.any(String),
    timestamp: expect.any(String),
    path: expect.stringMatching(/^\/novu\//),
  });
  return body.code as string;
}

let key: string;
beforeAll(async () => {
  key = (await createEnvironment()).key;
});

describe("GET /novu/openapi.json", () => {
  it("describes Novu's routes, with /novu as their server, and none of Clarion's own", () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: "/novu" })]);
    expect(operations.length).toBeGreaterThan(30);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/v1/events/trigger", "/v1/subscribers", "/v1/subscribers/{subscriberId}", "/v2/subscribers", "/v1/topics"]),
    );
    expect(Object.keys(document.paths)).not.toContain("/v1/trigger");
  });

  it("documents Novu's error body for every error status", () => {
    for (const { operation } of operations) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.length).toBeGreaterThan(0);
      for (const [, response] of errors) expect(Object.keys(response.content ?? {})).toEqual(["application/json"]);
    }
  });

  it("keeps Novu's routes out of Clarion's own /openapi.json", async () => {
    const native = (await (await SELF.fetch("http://clarion.test/openapi.json")).json()) as Document & {
      components: { schemas: Record<string, unknown> };
    };
    // Clarion has its own /v1/events (the event log); Novu's is /v1/events/trigger.
    expect(Object.keys(native.paths).filter((path) => /^\/(v1\/events\/trigger|v2\/)/.test(path))).toEqual([]);
    expect(Object.keys(native.paths).filter((path) => path.startsWith("/novu"))).toEqual([]);
    // Novu's vocabulary stays out; the in-app settings may name the /novu prefix the Inbox components call.
    expect(JSON.stringify(native)).not.toMatch(/topicKey|Novu compatibility|Novu's error/i);
  });
});

describe("every Novu operation", () => {
  it.each(secured)("$name answers a missing key with Novu's 401", async ({ method, path }) => {
    const res = await api(null, method, `/novu${fill(path)}`, method === "GET" || method === "DELETE" ? undefined : {});
    expect(res.status).toBe(401);
    expect(expectNovuError(res)).toBe("unauthorized");
  });
});

const BAD_BODIES: [string, { rawBody?: string; headers?: Record<string, string> }][] = [
  ["malformed JSON", { rawBody: "{", headers: { "content-type": "application/json" } }],
  ["an empty body", { rawBody: "" }],
  ["an empty JSON body", { rawBody: "", headers: { "content-type": "application/json" } }],
  ["JSON null", { rawBody: "null", headers: { "content-type": "application/json" } }],
  ["a JSON array", { rawBody: "[]", headers: { "content-type": "application/json" } }],
  ["a JSON string", { rawBody: '"text"', headers: { "content-type": "application/json" } }],
  [
    "fields of the wrong type",
    {
      rawBody: JSON.stringify({ name: 5, to: 5, subscriberId: 5, key: 5, subscribers: 5 }),
      headers: { "content-type": "application/json" },
    },
  ],
  ["text/plain", { rawBody: "{}", headers: { "content-type": "text/plain" } }],
];

describe.each(BAD_BODIES)("every Novu operation that takes a body, sent %s", (_, init) => {
  it.each(withBody)("$name answers a 4xx in Novu's error body", async ({ method, path }) => {
    expectNovuError(await api(key, method, `/novu${fill(path)}`, undefined, init));
  });
});

describe("bad input on Novu's routes (@novu/node's User-Agent or none)", () => {
  it.each([
    ["POST", "/v1/topics", undefined, "validation_failed"],
    ["POST", "/v1/topics", { key: "Not A Key", name: "x" }, "validation_failed"],
    ["POST", "/v1/topics/news/subscribers", { subscribers: [] }, "validation_failed"],
    ["POST", "/v1/events/trigger", { to: "ada" }, "validation_failed"],
    ["POST", "/v1/events/trigger/bulk", { events: [] }, "validation_failed"],
    ["POST", "/v1/subscribers", { subscriberId: "" }, "validation_failed"],
    ["GET", "/v1/subscribers?page=-1", undefined, "validation_failed"],
    ["GET", "/v1/subscribers?limit=101", undefined, "validation_failed"],
    ["GET", "/v1/topics?pageSize=0", undefined, "validation_failed"],
    ["GET", "/v2/subscribers?limit=abc", undefined, "validation_failed"],
    ["PATCH", "/v1/subscribers/ada/preferences/Not%20A%20Workflow", { enabled: false }, "validation_failed"],
    ["GET", "/v1/no-such-route", undefined, "not_found"],
    ["GET", "/v3/anything", undefined, "not_found"],
  ] as const)("%s %s %j answers %s", async (method, path, body, code) => {
    expect(expectNovuError(await api(key, method, `/novu${path}`, body))).toBe(code);
  });

  it("names the field of a validation failure in Novu's per-field errors", async () => {
    const res = await novu(key, "POST", "/v1/topics", { key: unique("t").toLowerCase() });
    expect(expectNovuError(res)).toBe("validation_failed");
    expect(res.body).toMatchObject({ errors: { name: { messages: [expect.any(String)] } } });
  });
});

describe("every Novu read, across environments", () => {
  const values: Record<string, string> = { level: "global" };
  let owner: string;
  let stranger: string;

  beforeAll(async () => {
    owner = (await createEnvironment()).key;
    stranger = (await createEnvironment()).key;
    values.subscriberId = unique("owned");
    values.key = unique("owned-topic").toLowerCase();
    expect((await api(owner, "POST", "/sub", { subscriberId: values.subscriberId, email: "owner@example.com" })).status).toBe(201);
    expect((await api(owner, "POST", "/v1/topics", { key: values.key, name: "Owner's" })).status).toBe(201);
    expect((await api(owner, "POST", `/v1/topics/${values.key}/subscribers`, { subscriberIds: [values.subscriberId] })).status).toBe(200);
  });

  /** A read of one resource: the owner sees it, the stranger gets a documented 404. A list: the stranger's names none of the owner's. */
  it.each(keyed.filter((o) => o.method === "GET"))("$name shows another environment nothing of this one's", async ({ path, operation }) => {
    const concrete = `/novu${fill(path, values)}`;
    const theirs = await api<{ code: string }>(stranger, "GET", concrete);
    if (path.includes("{")) {
      expect((await api(owner, "GET", concrete)).status).toBe(200);
      expect(theirs.status).toBe(404);
      expect(operation["x-error-codes"]).toContain(expectNovuError(theirs));
    } else {
      expect(theirs.status).toBe(200);
      for (const owned of [values.subscriberId, values.key]) expect(JSON.stringify(theirs.body)).not.toContain(owned);
    }
  });
});
