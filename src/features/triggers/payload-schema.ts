import { Validator, type Schema } from "@cfworker/json-schema";
import type { FieldError } from "../../lib/errors";

/** Validates a payload against a workflow's JSON Schema; errors carry `payload.<field>` paths. */
export function payloadErrors(schema: Record<string, unknown>, payload: unknown): FieldError[] {
  const result = new Validator(schema as Schema, "2020-12", false).validate(payload);
  if (result.valid) return [];
  const seen = new Set<string>();
  return result.errors
    .filter((e) => !["properties", "allOf", "anyOf", "oneOf", "$ref", "items", "prefixItems"].includes(e.keyword))
    .map((e) => ({ path: `payload${e.instanceLocation.slice(1).replaceAll("/", ".")}`, message: e.error }))
    .filter((e) => {
      const key = e.path + e.message;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
