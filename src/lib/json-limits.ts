/**
 * Bounds on JSON read from clients. Deep nesting is what turns bad input into a 500: recursive
 * code (JSON.stringify with a replacer, zod's lazy schemas, the JSON Schema validator) overflows
 * the stack on it. Every check here is iterative, so it is safe on any input.
 */

/** Any request body: deeper than any legitimate document, shallow enough for every recursive reader. */
export const MAX_BODY_DEPTH = 64;
/** A trigger's payload and overrides, and a workflow's payloadSchema. */
export const MAX_PAYLOAD_DEPTH = 32;
/** all / any / not groups inside one another in a step condition. */
export const MAX_CONDITION_DEPTH = 10;
/** An integration's credentials, as JSON (UTF-8). */
export const MAX_CREDENTIALS_BYTES = 64 * 1024;

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | null;
  key: PropertyKey;
}

const pathOf = (frame: Frame): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) path.unshift(f.key);
  return path;
};

/**
 * The path (relative to `value`) of the first object or array nested deeper than `max`, counting
 * `value` itself as depth 1; null when none is.
 */
export function tooDeepAt(value: unknown, max: number): PropertyKey[] | null {
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: "" }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const current = frame.value;
    if (typeof current !== "object" || current === null) continue;
    if (frame.depth > max) return pathOf(frame);
    const entries: [PropertyKey, unknown][] = Array.isArray(current) ? current.map((v, i) => [i, v]) : Object.entries(current);
    for (const [key, child] of entries) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return null;
}

/** A zod-style issue for a value nested deeper than `max`, under `path`; null when it is not. */
export function depthIssue(value: unknown, max: number, path: readonly PropertyKey[]): { path: PropertyKey[]; message: string } | null {
  const at = tooDeepAt(value, max);
  return at ? { path: [...path, ...at], message: `Nested deeper than ${max} levels.` } : null;
}
