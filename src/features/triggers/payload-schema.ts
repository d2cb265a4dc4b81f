import { dereference, Validator, type Schema } from "@cfworker/json-schema";
import type { FieldError } from "../../lib/errors";
import { depthIssue, MAX_PAYLOAD_DEPTH } from "../../lib/json-limits";

type Issue = { path: PropertyKey[]; message: string };

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

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const regexProblem = (source: string): string | null => {
  try {
    new RegExp(source, "u");
    return null;
  } catch {
    return "Not a valid regular expression (ECMA-262, unicode).";
  }
};

/** What the validator marks on every subschema it registered (see @cfworker/json-schema's dereference). */
interface Marked {
  __absolute_uri__?: string;
  __absolute_ref__?: string;
}

/**
 * What would make a payload schema throw at trigger time instead of answering: nesting past
 * the limit, a `$ref` that resolves to nothing, a `pattern` that is not a regular expression.
 * Checked when a workflow is saved, so a broken schema is refused then, with its path.
 */
export function payloadSchemaIssues(schema: Record<string, unknown>): Issue[] {
  const deep = depthIssue(schema, MAX_PAYLOAD_DEPTH, ["payloadSchema"]);
  if (deep) return [deep];
  // dereference marks the schema it is given; the stored schema stays as the client sent it.
  const copy = structuredClone(schema);
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy as Schema);
  } catch (error) {
    return [{ path: ["payloadSchema"], message: (error as Error).message }];
  }
  const issues: Issue[] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: copy, path: ["payloadSchema"] }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, path } = item;
    if (Array.isArray(value)) {
      for (const [i, child] of value.entries()) stack.push({ value: child, path: [...path, i] });
    }
    if (!isRecord(value)) continue;
    const marked = value as Marked;
    if (marked.__absolute_uri__ !== undefined) {
      if (marked.__absolute_ref__ !== undefined && lookup[marked.__absolute_ref__] === undefined) {
        issues.push({ path: [...path, "$ref"], message: `Unresolved $ref ${JSON.stringify(value.$ref)}.` });
      }
      const problem = typeof value.pattern === "string" ? regexProblem(value.pattern) : null;
      if (problem) issues.push({ path: [...path, "pattern"], message: problem });
      if (isRecord(value.patternProperties)) {
        for (const key of Object.keys(value.patternProperties)) {
          const keyProblem = regexProblem(key);
          if (keyProblem) issues.push({ path: [...path, "patternProperties", key], message: keyProblem });
        }
      }
    }
    for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: [...path, key] });
  }
  if (issues.length) return issues;
  try {
    // Anything else the validator cannot handle shows on the simplest instances.
    for (const instance of [{}, null, [], ""]) new Validator(copy as Schema, "2020-12", false).validate(instance);
  } catch (error) {
    return [{ path: ["payloadSchema"], message: (error as Error).message.split("\n")[0] ?? "The schema cannot be applied." }];
  }
  return [];
}
