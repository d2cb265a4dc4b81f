/** One RFC 6902 operation; a diff only ever needs these three. */
export type PatchOperation =
  | { op: "add"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "replace"; path: string; value: unknown };

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** RFC 6901: `~` and `/` in a key are escaped, `~` first. */
const pointer = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** Deep equality of JSON values (key order does not count). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const other = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === other.length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The JSON Patch that turns `from` into `to`, applied in order: objects key by key, arrays index
 * by index (extra items removed from the end first, so earlier indexes stay right).
 */
export function jsonPatch(from: unknown, to: unknown, path = ""): PatchOperation[] {
  if (jsonEqual(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: PatchOperation[] = [];
    for (const key of Object.keys(from)) {
      if (from[key] === undefined) continue;
      if (!(key in to) || to[key] === undefined) ops.push({ op: "remove", path: pointer(path, key) });
      else ops.push(...jsonPatch(from[key], to[key], pointer(path, key)));
    }
    for (const key of Object.keys(to)) {
      if (to[key] !== undefined && (!(key in from) || from[key] === undefined))
        ops.push({ op: "add", path: pointer(path, key), value: to[key] });
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const ops: PatchOperation[] = [];
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) ops.push(...jsonPatch(from[i], to[i], pointer(path, i)));
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: "remove", path: pointer(path, i) });
    for (let i = common; i < to.length; i++) ops.push({ op: "add", path: pointer(path, i), value: to[i] });
    return ops;
  }
  return [{ op: "replace", path, value: to }];
}
