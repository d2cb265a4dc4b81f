import { z } from "zod";
import { describe, expect, it } from "vitest";
import { fieldErrors } from "../../src/lib/errors";
import { createEnvironment } from "../factories";
import { api, expectProblem } from "../request";

const messages = (schema: z.ZodType, input: unknown) => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error("expected a failure");
  return fieldErrors(parsed.error.issues).map((e) => e.message);
};

describe("fieldErrors", () => {
  it.each([
    [z.object({ a: z.string().min(1) }), { a: "" }, "Required"],
    [z.object({ a: z.string() }), {}, "Required"],
    [z.object({ a: z.string().min(3) }), { a: "x" }, "At least 3 characters"],
    [z.object({ a: z.string().max(5) }), { a: "toolong" }, "At most 5 characters"],
    [z.object({ a: z.number().int().min(0) }), { a: -1 }, "Must be 0 or more"],
    [z.object({ a: z.number().max(720) }), { a: 721 }, "Must be 720 or less"],
    [z.object({ a: z.array(z.string()).max(1) }), { a: ["x", "y"] }, "At most 1 item"],
    [z.object({ a: z.enum(["email", "sms"]) }), { a: "fax" }, 'Must be one of "email", "sms"'],
    [z.object({ a: z.email() }), { a: "nope" }, "Enter an email address, like name@example.com"],
    [z.object({ a: z.string() }), { a: 42 }, "Must be text"],
    [z.strictObject({}), { color: "red" }, "Unknown field: color"],
  ])("says %# in words", (schema, input, expected) => {
    expect(messages(schema, input)).toEqual([expected]);
  });

  it("keeps a message the schema sets itself", () => {
    expect(messages(z.object({ a: z.string().min(2, "Use two letters or more.") }), { a: "x" })).toEqual(["Use two letters or more."]);
  });
});

describe("a 422 from the API", () => {
  it("names the field's problem in words, not in the validator's wording", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/workflows", { key: "", name: "", steps: [] });
    const body = expectProblem(res, 422, "validation_failed");
    for (const error of body.errors ?? []) expect(error.message).not.toMatch(/Too small|Invalid input|expected string/);
    expect(body.errors).toContainEqual({ path: "name", message: "Required" });
  });

  it("says what type a field must be (the errors reference shows this answer)", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "POST", "/v1/trigger", { workflow: "order-shipped", to: "user-42", payload: "not-an-object" });
    expect(expectProblem(res, 422, "validation_failed").errors).toEqual([{ path: "payload", message: "Must be an object" }]);
  });
});
