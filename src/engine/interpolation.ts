/**
 * The render of a template that is only text and plain outputs (`{{ subscriber.firstName }}`, no
 * filter, tag or whitespace control), without liquidjs: most message templates are this, and a
 * liquidjs render of one was about 15 µs a message, 5 % of a 10,000-member topic's CPU
 * (`bench:profile -- --topic 10000`). It answers what liquidjs would, with the engine's options
 * (templates.ts: `ownPropertyOnly`, `strictVariables: false`, `outputEscape: "escape"` for HTML),
 * or `undefined` wherever that takes more than a plain read, and liquidjs renders it:
 * - a name the scope does not own (a global, a liquid literal such as `nil` or `empty`);
 * - a step through anything but a plain object (an array, a string, a class instance);
 * - `size`, `first` and `last`, which liquidjs reads specially;
 * - a value that is an object, an array or a function.
 * test/engine/interpolation.test.ts holds it to liquidjs on each of these.
 */

type Part = string | readonly string[];

const OUTPUT = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;
const LITERALS = new Set(["true", "false", "nil", "null", "empty", "blank"]);
const SPECIAL = new Set(["size", "first", "last"]);
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" };

const CACHE_SIZE = 256;
/** Per source: its parts, or null when it is not only text and plain outputs. */
const compiled = new Map<string, readonly Part[] | null>();

function compile(source: string): readonly Part[] | null {
  const parts: Part[] = [];
  let at = 0;
  for (const match of source.matchAll(OUTPUT)) {
    const path = match[1]!.split(".");
    if (LITERALS.has(path[0]!) || path.some((p) => SPECIAL.has(p))) return null;
    if (match.index > at) parts.push(source.slice(at, match.index));
    parts.push(path);
    at = match.index + match[0].length;
  }
  if (at < source.length) parts.push(source.slice(at));
  // Anything liquid left in the text (a filter, a tag, `{{-`) is for liquidjs.
  return parts.some((p) => typeof p === "string" && (p.includes("{{") || p.includes("{%"))) ? null : parts;
}

function partsOf(source: string): readonly Part[] | null {
  let parts = compiled.get(source);
  if (parts === undefined) {
    parts = compile(source);
    compiled.set(source, parts);
    if (compiled.size > CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
  }
  return parts;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** The text of one output, or undefined when liquidjs must decide it. */
function output(scope: Record<string, unknown>, path: readonly string[]): string | undefined {
  if (!Object.hasOwn(scope, path[0]!)) return undefined;
  let value: unknown = scope;
  for (const key of path) {
    if (value === undefined || value === null) return "";
    if (!isPlainObject(value)) return undefined;
    value = Object.hasOwn(value, key) ? value[key] : undefined;
  }
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "boolean":
      return String(value);
    case "undefined":
      return "";
    default:
      return value === null ? "" : undefined;
  }
}

/**
 * `source` rendered against `scope`, or undefined when it is for liquidjs. `memoryLimit` is the
 * engine's: a render charges one unit per part, and in HTML the length of every escaped value;
 * past the limit liquidjs refuses the render, so such a template is left to it to refuse.
 */
export function interpolate(source: string, scope: object, html: boolean, memoryLimit: number): string | undefined {
  const parts = partsOf(source);
  if (!parts || !isPlainObject(scope)) return undefined;
  let charged = Math.max(1, parts.length);
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") {
      text += part;
      continue;
    }
    const value = output(scope, part);
    if (value === undefined) return undefined;
    if (!html) {
      text += value;
      continue;
    }
    charged += value.length;
    text += value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
  }
  return charged > memoryLimit ? undefined : text;
}
