import type { Condition } from "./model";

/** A condition as people read it: `a and (b or not c)`. */
export function describeCondition(condition: Condition | undefined): string {
  if (!condition) return "";
  const group = (items: Condition[], joiner: string) =>
    items.length === 1 ? describeCondition(items[0]) : items.map((c) => `(${describeCondition(c)})`).join(joiner);
  if ("all" in condition) return group(condition.all, " and ");
  if ("any" in condition) return group(condition.any, " or ");
  if ("not" in condition) return `not (${describeCondition(condition.not)})`;
  const value = condition.value === undefined ? "" : ` ${JSON.stringify(condition.value)}`;
  return `${condition.field} ${condition.op}${value}`;
}

const BLANK: Record<string, unknown> = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} };

/** One schema's sample: its example, default or first allowed value, else a blank of its type, objects and lists filled in. */
function sampleOf(spec: unknown, depth: number): unknown {
  if (typeof spec !== "object" || spec === null) return "";
  const s = spec as Record<string, unknown>;
  const given =
    s.example ?? (Array.isArray(s.examples) ? s.examples[0] : undefined) ?? s.default ?? (Array.isArray(s.enum) ? s.enum[0] : undefined);
  if (given !== undefined) return given;
  const type =
    typeof s.type === "string" ? s.type : Array.isArray(s.type) ? String(s.type.find((t) => t !== "null") ?? "string") : "string";
  if (depth < 6 && (type === "object" || typeof s.properties === "object") && typeof s.properties === "object" && s.properties !== null) {
    return Object.fromEntries(Object.entries(s.properties).map(([name, child]) => [name, sampleOf(child, depth + 1)]));
  }
  if (depth < 6 && type === "array" && typeof s.items === "object" && s.items !== null) return [sampleOf(s.items, depth + 1)];
  return BLANK[type] ?? "";
}

/** A starting sample from the payload schema: each property (nested ones too) with its example, default or a blank of its type. */
export function samplePayload(schema: Record<string, unknown> | null): Record<string, unknown> {
  const properties = schema?.properties;
  if (typeof properties !== "object" || properties === null) return {};
  return sampleOf({ type: "object", properties }, 0) as Record<string, unknown>;
}

/**
 * Without a schema, a sample from what the templates read: `{{ payload.order.id }}` gives
 * `{ "order": { "id": "" } }`, so the preview has something to render.
 */
export function payloadFromTemplates(steps: unknown): Record<string, unknown> {
  const sample: Record<string, unknown> = {};
  for (const [, path] of JSON.stringify(steps).matchAll(/\bpayload((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
    const names = path!.slice(1).split(".");
    let at = sample;
    names.forEach((name, i) => {
      if (i === names.length - 1) {
        if (!(name in at)) at[name] = "";
        return;
      }
      if (typeof at[name] !== "object" || at[name] === null) at[name] = {};
      at = at[name] as Record<string, unknown>;
    });
  }
  return sample;
}
