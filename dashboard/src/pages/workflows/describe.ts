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

/** A starting sample: each property of the payload schema with its example, default or a blank of its type. */
export function samplePayload(schema: Record<string, unknown> | null): Record<string, unknown> {
  const properties = schema?.properties;
  if (typeof properties !== "object" || properties === null) return {};
  const blank: Record<string, unknown> = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} };
  return Object.fromEntries(
    Object.entries(properties as Record<string, Record<string, unknown>>).map(([name, spec]) => {
      const examples = Array.isArray(spec?.examples) ? spec.examples : [];
      const type = typeof spec?.type === "string" ? spec.type : "string";
      return [name, spec?.example ?? examples[0] ?? spec?.default ?? blank[type] ?? ""];
    }),
  );
}
