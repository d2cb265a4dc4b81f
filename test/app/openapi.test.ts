import { describe, expect, it } from "vitest";
import { api } from "../request";

describe("GET /openapi.json", () => {
  it("describes the public endpoints from the zod schemas", async () => {
    const res = await api<{ openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(
      null,
      "GET",
      "/openapi.json",
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        "/v1/trigger",
        "/v1/trigger/bulk",
        "/v1/trigger/broadcast",
        "/sub",
        "/sub/bulk",
        "/v1/workflows",
        "/v1/workflows/{key}",
      ]),
    );
    expect(res.body.components.schemas).toHaveProperty("TriggerRequest");
    expect(res.body.components.schemas).toHaveProperty("Step");
  });

  it("serves an API reference page at /docs", async () => {
    const { SELF } = await import("cloudflare:test");
    const res = await SELF.fetch("http://clarion.test/docs");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("/openapi.json");
  });
});

interface SchemaObject {
  $ref?: string;
  example?: unknown;
  examples?: unknown[];
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: SchemaObject; example?: unknown }> } }>>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes: Record<string, unknown> };
}

/** A value with something in it: not null, and not an object whose every field is null. */
const meaningful = (value: unknown): boolean =>
  value !== null && value !== undefined && (typeof value !== "object" || Object.values(value as object).some((v) => v !== null));

describe("the reference's examples", async () => {
  const doc = (await api<OpenApiDocument>(null, "GET", "/openapi.json")).body;
  const resolve = (schema: SchemaObject) => (schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!]! : schema);
  const bodies = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation.requestBody?.content["application/json"])
      .map(([method, operation]) => ({
        name: `${method.toUpperCase()} ${path}`,
        media: operation.requestBody!.content["application/json"]!,
      })),
  );

  it.each(bodies)("$name has a realistic request example", ({ media }) => {
    const schema = resolve(media.schema);
    const example = media.example ?? schema.example ?? schema.examples?.[0];
    expect(meaningful(example)).toBe(true);
  });

  it("declares the ApiKey and AdminKey schemes on the Authorization header, and the metrics' bearer token", () => {
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
      AdminKey: expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
      MetricsToken: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
  });

  it("declares the Idempotency-Key header, its problems and Idempotency-Replay on every keyed POST and on no public one", () => {
    const posts = Object.entries(doc.paths).flatMap(([path, methods]) => (methods.post ? [{ path, operation: methods.post }] : []));
    const declares = ({ operation }: (typeof posts)[number]) => {
      const op = operation as unknown as {
        parameters?: { $ref?: string }[];
        "x-error-codes": string[];
        responses: Record<string, { headers?: Record<string, { $ref?: string }> }>;
      };
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith("2"));
      return (
        Boolean(op.parameters?.some((p) => p.$ref === "#/components/parameters/IdempotencyKey")) &&
        ["invalid_idempotency_key", "idempotency_key_mismatch", "idempotency_key_in_flight"].every((c) =>
          op["x-error-codes"].includes(c),
        ) &&
        success.length > 0 &&
        success.every(([, r]) => r.headers?.["Idempotency-Replay"]?.$ref === "#/components/headers/IdempotencyReplay")
      );
    };
    // Public POSTs: provider webhooks (signed by the provider) and the dashboard's sign-in (the credential is its body).
    const isPublic = (p: (typeof posts)[number]) => p.path.startsWith("/v1/webhooks/") || p.path === "/v1/dashboard/session";
    const [webhooks, keyed] = [posts.filter(isPublic), posts.filter((p) => !isPublic(p))];
    expect(keyed.length).toBeGreaterThan(10);
    expect(keyed.filter((p) => !declares(p)).map((p) => p.path)).toEqual([]);
    expect(webhooks.length).toBeGreaterThan(0);
    expect(webhooks.filter(declares).map((p) => p.path)).toEqual([]);
    const components = doc.components as unknown as { parameters: Record<string, unknown>; headers: Record<string, unknown> };
    expect(components.parameters.IdempotencyKey).toMatchObject({ name: "Idempotency-Key", in: "header", required: false });
    expect(components.headers).toHaveProperty("IdempotencyReplay");
  });

  it("puts the admin API under its own tag and scheme", () => {
    const admin = Object.entries(doc.paths).filter(([path]) => path.startsWith("/v1/admin/"));
    expect(admin.flatMap(([, methods]) => Object.keys(methods))).toHaveLength(12);
    for (const [, methods] of admin) {
      for (const operation of Object.values(methods) as { tags: string[]; security: unknown[] }[]) {
        expect(operation.tags).toEqual(["Admin"]);
        expect(operation.security).toEqual([{ AdminKey: [] }]);
      }
    }
  });
});

describe("the request examples", () => {
  it("are accepted by the API they document, in the order a new user would send them", async () => {
    const { REQUEST_EXAMPLES } = await import("../../src/features/docs/examples");
    const { createSandboxEnvironment } = await import("../factories");
    const { key } = await createSandboxEnvironment();
    const send = (operation: string, path = operation.split(" ")[1]!) =>
      api(key, operation.split(" ")[0]!, path, REQUEST_EXAMPLES[operation]).then((res) => [operation, res.status < 300 ? "ok" : res.body]);
    const results = [
      await send("POST /v1/workflows"),
      await send("PUT /v1/workflows/{key}", "/v1/workflows/order-shipped"),
      await send("POST /v1/workflows/{key}/preview", "/v1/workflows/order-shipped/preview"),
      await send("POST /sub"),
      await send("POST /sub/bulk"),
      await send("PUT /v1/subscribers/{subscriberId}/preferences", "/v1/subscribers/user-42/preferences"),
      await send("POST /v1/trigger"),
      await send("POST /v1/trigger/bulk"),
      await send("POST /v1/trigger/broadcast"),
      await send("POST /v1/variables"),
      await send("PUT /v1/variables/{key}", "/v1/variables/SUPPORT_EMAIL"),
      await send("POST /v1/topics"),
      await send("PUT /v1/topics/{key}", "/v1/topics/product-news"),
      await send("POST /v1/topics/{key}/subscribers", "/v1/topics/product-news/subscribers"),
      await send("DELETE /v1/topics/{key}/subscribers", "/v1/topics/product-news/subscribers"),
      await send("POST /v1/integrations"),
    ];
    expect(results.filter(([, outcome]) => outcome !== "ok")).toEqual([]);
  });
});
