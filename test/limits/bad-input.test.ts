import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { foldHeaderFields } from "../../src/engine/templates";
import { bytesToBase64 } from "../../src/lib/base64";
import { decryptJson, encryptJson } from "../../src/lib/secrets";
import { createEnvironment, createEnvironmentWithWorkflow, createWorkflow, postTrigger, workflowBody } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

/** `{"a":{"a":…{"a":1}}}` with `depth` objects. */
const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** The same value written as text, for depths JSON.stringify itself cannot reach. */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("nesting depth", () => {
  it("refuses a trigger payload nested 100,000 levels deep with 422, not 500", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const rawBody = `{"workflow":"${workflowKey}","to":"sub-1","payload":${nestedText(100_000)}}`;
    const res = await api(key, "POST", "/v1/trigger", undefined, { rawBody, headers: { "content-type": "application/json" } });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)[0]).toMatch(/^payload(\.a)+$/);
  });

  it("refuses a payload deeper than 32 levels with the path where it goes too deep", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await postTrigger(key, { workflow: workflowKey, to: "sub-1", payload: nested(33) });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual([`payload${".a".repeat(32)}`]);
  });

  it("accepts a payload 32 levels deep", async () => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    expect((await postTrigger(key, { workflow: workflowKey, to: "sub-1", payload: nested(32) })).status).toBe(202);
  });

  it("refuses a condition nested 5,000 levels deep with 422, not 500", async () => {
    const { key } = await createEnvironment();
    let condition = `{"field":"payload.x","op":"exists"}`;
    condition = `${'{"not":'.repeat(5000)}${condition}${"}".repeat(5000)}`;
    const body = JSON.stringify(workflowBody()).replace('"type":"email"', `"type":"email","if":${condition}`);
    const res = await api(key, "POST", "/v1/workflows", undefined, { rawBody: body, headers: { "content-type": "application/json" } });
    expectProblem(res, 422, "validation_failed");
  });

  it("refuses a condition deeper than 10 levels", async () => {
    const { key } = await createEnvironment();
    let condition: unknown = { field: "payload.x", op: "exists" };
    for (let i = 0; i < 11; i++) condition = { not: condition };
    const body = workflowBody({ steps: [{ id: "email-1", type: "email", if: condition, template: { subject: "Hi", text: "Hello" } }] });
    const res = await api(key, "POST", "/v1/workflows", body);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["steps.0.if"]);
  });
});

describe("payload schemas", () => {
  it.each([
    ["an unresolved $ref", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, "payloadSchema.properties.a.$ref"],
    ["an invalid pattern", { type: "object", properties: { a: { type: "string", pattern: "(" } } }, "payloadSchema.properties.a.pattern"],
    ["nesting deeper than 32 levels", nested(40, {}), `payloadSchema${".a".repeat(32)}`],
  ])("refuses a payloadSchema with %s at save, with the path", async (_, payloadSchema, path) => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/workflows", workflowBody({ payloadSchema }));
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual([path]);
  });

  it("accepts a payloadSchema whose $ref resolves", async () => {
    const { key } = await createEnvironment();
    const payloadSchema = { type: "object", $defs: { id: { type: "string" } }, properties: { a: { $ref: "#/$defs/id" } } };
    const workflow = await createWorkflow(key, { payloadSchema });
    const res = await postTrigger(key, { workflow: workflow.key, to: "sub-1", payload: { a: 1 } });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["payload.a"]);
  });

  it("answers a trigger of a workflow stored with a broken schema with 422, not 500", async () => {
    const { id, key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    await env.DB.prepare("UPDATE workflows SET payload_schema = ? WHERE environment_id = ? AND key = ?")
      .bind(JSON.stringify({ properties: { a: { $ref: "#/nowhere" } } }), id, workflow.key)
      .run();
    const res = await postTrigger(key, { workflow: workflow.key, to: "sub-1", payload: { a: 1 } });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["payloadSchema"]);
  });
});

describe("sizes", () => {
  it("refuses credentials larger than 64 KB with 422 on credentials, not 500", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/integrations", {
      provider: "resend",
      credentials: { apiKey: "re_".padEnd(300_000, "x"), from: "Shop <shop@example.com>" },
    });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["credentials"]);
  });

  it("encrypts and decrypts a value of 300 KB", async () => {
    const value = { blob: "x".repeat(300_000) };
    expect(await decryptJson(env.ENCRYPTION_KEY, await encryptJson(env.ENCRYPTION_KEY, value, "test:row"), "test:row")).toEqual(value);
  });

  it("encodes 300 KB as base64", () => {
    const bytes = new Uint8Array(300_000).fill(255);
    expect(bytesToBase64(bytes)).toBe(btoa("\xff".repeat(300_000)));
  });
});

describe("header-bound email fields", () => {
  it.each([
    ["overrides.email.from", { email: { from: "Shop <shop@example.com>\r\nBcc: all@example.com" } }],
    ["overrides.email.replyTo", { email: { replyTo: "help@example.com\nBcc: all@example.com" } }],
    ["overrides.email.subject", { email: { subject: "Hello\r\nBcc: all@example.com" } }],
    ["overrides.resend.headers.X-Campaign", { resend: { headers: { "X-Campaign": "a\r\nBcc: all@example.com" } } }],
  ])("refuses CR or LF in %s with 422", async (path, overrides) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await postTrigger(key, { workflow: workflowKey, to: "sub-1", overrides });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual([path]);
  });

  it.each([
    ["a local part over 64 characters", `${"a".repeat(65)}@example.com`],
    ["an address over 254 characters", `a@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(60)}.com`],
  ])("refuses overrides.email.from with %s", async (_, address) => {
    const { key, workflowKey } = await createEnvironmentWithWorkflow();
    const res = await postTrigger(key, { workflow: workflowKey, to: "sub-1", overrides: { email: { from: `Shop <${address}>` } } });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["overrides.email.from"]);
  });

  it("refuses a subscriber email with a local part over 64 characters", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/sub", { subscriberId: "long-local", email: `${"a".repeat(65)}@example.com` });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["email"]);
  });

  it("refuses CR or LF in a subscriber's name", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/sub", { subscriberId: "crlf-name", firstName: "Ann\r\nBcc: all@example.com" });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["firstName"]);
  });

  it("folds a line break a template renders into a header-bound field", () => {
    const content = { subject: "Hi Ann\r\nBcc: all@example.com", from: "a@example.com\n", text: "line 1\nline 2" };
    expect(foldHeaderFields("email", content)).toEqual({
      subject: "Hi Ann Bcc: all@example.com",
      from: "a@example.com ",
      text: "line 1\nline 2",
    });
  });

  it("refuses CR or LF in a workflow's email from", async () => {
    const { key } = await createEnvironment();
    const steps = [
      { id: "email-1", type: "email", template: { subject: "Hi", text: "Hello", from: "a@example.com\r\nBcc: x@example.com" } },
    ];
    const res = await api(key, "POST", "/v1/workflows", workflowBody({ steps }));
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["steps.0.template.from"]);
  });
});
