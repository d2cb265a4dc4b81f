// Checks every operation of /openapi.json, so a new route cannot skip them: a keyed route refuses
// a request without a key, a JSON body it cannot read is a documented 4xx problem (never a 500),
// and one environment's key never reads another environment's data.
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/contract/error-codes";
import type { IntegrationList } from "../../src/features/integrations/schemas";
import type { MessageList } from "../../src/features/messages/schemas";
import { createEnvironment, createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, deliverHeldJobs } from "../ledger";
import { ADMIN_KEY, api, expectProblem } from "../request";

interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  "x-error-codes": ErrorCode[];
}
type Document = { paths: Record<string, Record<string, Operation>> };

const document = (await (await SELF.fetch("http://clarion.test/openapi.json")).json()) as Document;
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    operation,
  })),
);
/** Operations behind an API key or the admin credential; `GET /metrics` has its own token (test/metrics/). */
const keyed = operations.filter((o) => /"(ApiKey|AdminKey)"/.test(JSON.stringify(o.operation.security ?? [])));
/** The admin API's operations answer to the admin credential, the rest to an environment key. */
const isAdmin = (operation: Operation) => JSON.stringify(operation.security ?? []).includes("AdminKey");
const environmentKeyed = keyed.filter((o) => !isAdmin(o.operation));
const withJsonBody = operations.filter((o) => o.operation.requestBody?.content["application/json"]);

/** The path with its `{params}` filled from `values`, or with a placeholder. */
const fill = (path: string, values: Record<string, string> = {}) =>
  path.replaceAll(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "no-such-thing"));

it("finds the API's operations", () => {
  expect(keyed.length).toBeGreaterThan(30);
  expect(withJsonBody.length).toBeGreaterThan(10);
  for (const { operation } of operations) expect(operation["x-error-codes"].length).toBeGreaterThan(0);
});

describe("every keyed operation", () => {
  it.each(keyed)("$name answers 401 problem+json without a key", async ({ method, path }) => {
    const res = await api(null, method, fill(path), method === "GET" || method === "DELETE" ? undefined : {});
    expect(expectProblem(res, 401, "unauthorized").detail).toMatch(/ApiKey/);
  });

  it.each(keyed)("$name answers 403 to the other kind of credential", async ({ method, path, operation }) => {
    const other = isAdmin(operation) ? (await createEnvironment()).key : ADMIN_KEY;
    const res = await api(other, method, fill(path), method === "GET" || method === "DELETE" ? undefined : {});
    expectProblem(res, 403, "forbidden");
    expect(operation["x-error-codes"]).toContain("forbidden");
  });

  it.each(keyed)("$name documents unauthorized", ({ operation }) => {
    expect(operation["x-error-codes"]).toContain("unauthorized");
  });
});

describe("every operation with a JSON body", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createEnvironment());
  });

  it.each(withJsonBody)("$name answers malformed JSON with a documented 400 problem", async ({ method, path, operation }) => {
    const credential = isAdmin(operation) ? ADMIN_KEY : key;
    const res = await api(credential, method, fill(path), undefined, {
      headers: { "content-type": "application/json" },
      rawBody: '{"to": ',
    });
    expectProblem(res, 400, "malformed_json");
    expect(operation["x-error-codes"]).toContain("malformed_json");
  });

  it.each(withJsonBody)("$name answers a body of the wrong shape with a documented 4xx problem", async ({ method, path, operation }) => {
    const res = await api<{ code: ErrorCode }>(isAdmin(operation) ? ADMIN_KEY : key, method, fill(path), ["not", "an", "object"]);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(operation["x-error-codes"]).toContain(res.body.code);
  });
});

describe("every keyed read, across environments", () => {
  const values: Record<string, string> = {};
  let owner: string;
  let integrationId: string;
  let endpointId: string;
  let stranger: string;

  beforeAll(async () => {
    const a = await createSandboxEnvironment();
    owner = a.key;
    stranger = (await createEnvironment()).key;
    // One key that is valid for a workflow, a variable and a topic alike.
    const shared = `iso_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const workflow = await createWorkflow(owner, {
      key: shared,
      steps: [{ id: "mail", type: "email", template: { subject: "Isolated", text: "Hello" } }],
    });
    values.key = workflow.key;
    values.subscriberId = unique("sub");
    expect((await api(owner, "POST", "/sub", { subscriberId: values.subscriberId, email: "owner@example.com" })).status).toBe(201);
    // The trigger's job goes to the consumer now, which writes its message, rather than through the Queue.
    values.transactionId = (await acceptThenCrash(a.id, workflow.key, values.subscriberId)).transactionId;
    await deliverHeldJobs(a.id, values.transactionId);
    const list = await api<MessageList>(owner, "GET", `/v1/messages?transactionId=${values.transactionId}`);
    values.id = list.body.data[0]!.id;
    expect((await api(owner, "POST", "/v1/variables", { key: workflow.key, value: "owner's" })).status).toBe(201);
    expect((await api(owner, "POST", "/v1/topics", { key: workflow.key, name: "Owner's" })).status).toBe(201);
    expect((await api(owner, "POST", "/v1/layouts", { key: workflow.key, name: "Owner's", html: "{{ content }}" })).status).toBe(201);
    expect((await api(owner, "POST", "/v1/partials", { key: workflow.key, name: "Owner's", content: "x", type: "text" })).status).toBe(201);
    const integrations = await api<IntegrationList>(owner, "GET", "/v1/integrations");
    integrationId = integrations.body.data[0]!.id;
    const endpoint = await api<{ id: string }>(owner, "POST", "/v1/webhook-endpoints", { url: "https://example.com/owner" });
    endpointId = endpoint.body.id;
    expect((await api(owner, "POST", "/v1/tenants", { id: workflow.key, name: "Owner's" })).status).toBe(201);
    // A brand and a locale, each at version 1.
    const colors = { primary: "#000000", background: "#ffffff", text: "#000000", link: "#0000ee" };
    expect((await api(owner, "PUT", "/v1/brand", { name: "Owner's", logoUrl: null, colors })).status).toBe(200);
    values.locale = "fr-CA";
    expect((await api(owner, "PUT", `/v1/translations/${values.locale}`, { keys: { owned: "Owner's" } })).status).toBe(200);
  });

  /** `{id}` is an integration's id under /v1/integrations/, an endpoint's under /v1/webhook-endpoints/ and a message's elsewhere; `{n}` the workflow's first version. */
  const valuesFor = (path: string) =>
    path.startsWith("/v1/integrations/")
      ? { ...values, id: integrationId }
      : path.startsWith("/v1/webhook-endpoints/")
        ? { ...values, id: endpointId }
        : path.startsWith("/v1/tenants/")
          ? { ...values, id: values.key ?? "" }
          : { ...values, n: "1" };

  /** A read of one resource: the owner sees it, the stranger gets a documented 404. A list: the stranger's names none of the owner's. */
  it.each(environmentKeyed.filter((o) => o.method === "GET"))(
    "$name shows another environment nothing of this one's",
    async ({ path, operation }) => {
      const concrete = fill(path, valuesFor(path));
      const theirs = await api<{ code: ErrorCode }>(stranger, "GET", concrete);
      if (path.includes("{")) {
        expect((await api(owner, "GET", concrete)).status).toBe(200);
        expect(theirs.status).toBe(404);
        expect(operation["x-error-codes"]).toContain(theirs.body.code);
      } else {
        expect(theirs.status).toBe(200);
        for (const owned of Object.values({ ...values, integrationId })) expect(JSON.stringify(theirs.body)).not.toContain(owned);
      }
    },
  );
});
