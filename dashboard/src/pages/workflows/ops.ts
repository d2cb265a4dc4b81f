import type { Op } from "./model";

/** Each operator in words, and what value it takes. */
export const OPS: { op: Op; label: string; value: "none" | "one" | "two" | "list" | "time" }[] = [
  { op: "eq", label: "equals", value: "one" },
  { op: "ne", label: "does not equal", value: "one" },
  { op: "gt", label: "greater than", value: "one" },
  { op: "gte", label: "at least", value: "one" },
  { op: "lt", label: "less than", value: "one" },
  { op: "lte", label: "at most", value: "one" },
  { op: "between", label: "between", value: "two" },
  { op: "in", label: "is one of", value: "list" },
  { op: "nin", label: "is none of", value: "list" },
  { op: "contains", label: "contains", value: "one" },
  { op: "not_contains", label: "does not contain", value: "one" },
  { op: "contains_all", label: "contains all of", value: "list" },
  { op: "starts_with", label: "starts with", value: "one" },
  { op: "ends_with", label: "ends with", value: "one" },
  { op: "exists", label: "exists", value: "none" },
  { op: "not_exists", label: "does not exist", value: "none" },
  { op: "empty", label: "is empty", value: "none" },
  { op: "not_empty", label: "is not empty", value: "none" },
  { op: "before", label: "is before", value: "time" },
  { op: "after", label: "is after", value: "time" },
];

export const opSpec = (op: Op) => OPS.find((o) => o.op === op) ?? { op, label: op, value: "one" as const };

/**
 * A typed value as JSON when it reads as a number, true, false or null (so `true` compares as a
 * boolean), else as the text itself; "quoted" forces text.
 */
export function parseScalar(text: string): unknown {
  const t = text.trim();
  if (/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)$/.test(t) || /^".*"$/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

/** The inverse of parseScalar: text shows bare unless it would read back as something else. */
export function showScalar(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return parseScalar(value) === value ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

export const parseList = (text: string): unknown[] =>
  text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map(parseScalar);
export const showList = (value: unknown): string => (Array.isArray(value) ? value.map(showScalar).join(", ") : showScalar(value));

/** The value a leaf keeps when its operator changes: the same kind of value if it fits, else a blank one. */
export function valueFor(op: Op, previous: unknown): unknown {
  const kind = opSpec(op).value;
  if (kind === "none") return undefined;
  if (kind === "list") return Array.isArray(previous) ? previous : previous === undefined || previous === "" ? [] : [previous];
  if (kind === "two") return Array.isArray(previous) && previous.length === 2 ? previous : ["", ""];
  return Array.isArray(previous) ? (previous[0] ?? "") : (previous ?? "");
}
