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

/** Any RFC 6902 operation, as a patch someone sends (a proposal's) may hold. */
export type AnyPatchOperation =
  | PatchOperation
  | { op: "move" | "copy"; from: string; path: string }
  | { op: "test"; path: string; value: unknown };

/** Why an operation could not apply: its index in the patch and the reason. */
export class PatchError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

/** RFC 6901: `""` is the whole document; each token unescaped (`~1` before `~0`). */
function tokensOf(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new Error(`"${path}" is not a JSON Pointer (it must start with "/")`);
  return path
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** An array index token: digits without a leading zero, or `-` (past the end) when `end` allows it. */
function indexOf(token: string, length: number, end: boolean): number {
  if (token === "-" && end) return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`"${token}" is not an array index`);
  const i = Number(token);
  if (i > length || (!end && i === length)) throw new Error(`index ${i} is out of range`);
  return i;
}

/** The container holding `tokens`' last token, and that token. */
function parentOf(doc: unknown, tokens: string[], path: string): [JsonObject | unknown[], string] {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[indexOf(token, node.length, false)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new Error(`"${path}" does not exist`);
  }
  if (!Array.isArray(node) && !isObject(node)) throw new Error(`"${path}" does not exist`);
  return [node, tokens[tokens.length - 1]!];
}

function valueAt(doc: unknown, path: string): unknown {
  let node = doc;
  for (const token of tokensOf(path)) {
    if (Array.isArray(node)) node = node[indexOf(token, node.length, false)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new Error(`"${path}" does not exist`);
  }
  return node;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = tokensOf(path);
  if (tokens.length === 0) return value;
  const [parent, last] = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(indexOf(last, parent.length, true), 0, value);
  else parent[last] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = tokensOf(path);
  if (tokens.length === 0) return null;
  const [parent, last] = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(indexOf(last, parent.length, false), 1);
  else if (Object.hasOwn(parent, last)) delete parent[last];
  else throw new Error(`"${path}" does not exist`);
  return doc;
}

/**
 * Applies an RFC 6902 patch to a copy of `doc`; all or nothing: the first operation that cannot
 * apply (a missing path, a failed `test`) throws a PatchError naming it, and `doc` is untouched.
 */
export function applyJsonPatch(doc: unknown, patch: readonly AnyPatchOperation[]): unknown {
  let out: unknown = doc === undefined ? null : structuredClone(doc);
  patch.forEach((op, i) => {
    try {
      switch (op.op) {
        case "add":
          out = add(out, op.path, structuredClone(op.value));
          break;
        case "remove":
          out = remove(out, op.path);
          break;
        case "replace":
          out = add(remove(out, op.path), op.path, structuredClone(op.value));
          break;
        case "move": {
          if (op.path.startsWith(`${op.from}/`)) throw new Error(`cannot move "${op.from}" into itself`);
          const value = valueAt(out, op.from);
          out = add(remove(out, op.from), op.path, value);
          break;
        }
        case "copy":
          out = add(out, op.path, structuredClone(valueAt(out, op.from)));
          break;
        case "test":
          if (!jsonEqual(valueAt(out, op.path), op.value)) throw new Error(`"${op.path}" is not the value the test expects`);
          break;
      }
    } catch (error) {
      throw new PatchError(i, (error as Error).message);
    }
  });
  return out;
}
