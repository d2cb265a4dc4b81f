import { describe, expect, it } from "vitest";
import type { ApiError } from "../../src/lib/errors";
import { isReplayable, parseIdempotencyKey } from "../../src/lib/middleware/idempotency";

describe("parseIdempotencyKey", () => {
  it.each([
    ["a bare token", "order-1234", "order-1234"],
    ["a structured-field string", '"order-1234"', "order-1234"],
    ["a string with escapes", '"a\\"b\\\\c"', 'a"b\\c'],
    ["spaces inside", "one two", "one two"],
  ])("reads %s", (_, header, key) => {
    expect(parseIdempotencyKey(header)).toBe(key);
  });

  it.each([
    ["empty", ""],
    ["an empty string", '""'],
    ["256 characters", "k".repeat(256)],
    ["a control character", "a\u0001b"],
    ["non-ASCII", "café"],
  ])("refuses %s with invalid_idempotency_key", (_, header) => {
    expect(() => parseIdempotencyKey(header)).toThrow(expect.objectContaining({ code: "invalid_idempotency_key" }) as ApiError);
  });
});

describe("isReplayable", () => {
  it.each([200, 201, 202, 204, 400, 404, 413, 422])("keeps %i", (status) => {
    expect(isReplayable(status)).toBe(true);
  });

  it.each([408, 409, 425, 429, 500, 502, 503])("does not keep %i", (status) => {
    expect(isReplayable(status)).toBe(false);
  });
});
