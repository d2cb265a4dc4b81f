import type { Condition, ConditionOp } from "./steps";
import type { TemplateContext } from "./content";
import { addDuration } from "./durations";
import { readField } from "./fields";

type Leaf = Extract<Condition, { op: ConditionOp }>;

export interface LeafResult {
  field: string;
  op: ConditionOp;
  value: unknown;
  /** What the field held; undefined when it is absent. */
  actual: unknown;
  result: boolean;
}

export interface ConditionExplanation {
  result: boolean;
  leaves: LeafResult[];
}

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?\s*$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function asNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && NUMERIC.test(value)) return Number(value);
  return null;
}

/** Negative, zero or positive like a sort comparator; null when the two cannot be ordered. */
function compare(a: unknown, b: unknown): number | null {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== null && y !== null) return x - y;
  const scalar = (v: unknown) => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
  if (!scalar(a) || !scalar(b)) return null;
  const s = String(a);
  const t = String(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

/** Loose on scalars ("5" equals 5, as payloads often carry numbers as strings), deep on arrays and objects. */
function equals(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => equals(item, b[i]));
  }
  if (isRecord(a) || isRecord(b)) {
    if (!isRecord(a) || !isRecord(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equals(a[key], b[key]));
  }
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== null && y !== null) return x === y;
  return String(a) === String(b);
}

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

const isText = (value: unknown): value is string | number => typeof value === "string" || typeof value === "number";

function contains(actual: unknown, value: unknown): boolean {
  if (typeof actual === "string") return isText(value) && actual.includes(String(value));
  if (Array.isArray(actual)) return actual.some((item) => equals(item, value));
  return false;
}

/** A field's timestamp: epoch milliseconds or an ISO 8601 date/date-time string. */
function fieldTime(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || !ISO_DATE.test(value.trim())) return null;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? null : ms;
}

/** A condition's timestamp: as a field's, plus "now" and durations relative to now ("-P1D", "PT2H"). */
function valueTime(value: unknown, now: Date): number | null {
  if (typeof value === "string") {
    const text = value.trim();
    if (text.toLowerCase() === "now") return now.getTime();
    if (/^-?P/i.test(text)) return addDuration(now, text.toUpperCase())?.getTime() ?? null;
  }
  return fieldTime(value);
}

function orderedTimes(actual: unknown, value: unknown, now: Date): [number, number] | null {
  const a = fieldTime(actual);
  const b = valueTime(value, now);
  return a === null || b === null ? null : [a, b];
}

/** Absent values contain nothing, so the negative ops hold for them; other type mismatches are false. */
function evaluateLeaf(op: ConditionOp, actual: unknown, value: unknown, now: Date): boolean {
  const ordered = (test: (c: number) => boolean) => {
    const c = compare(actual, value);
    return c !== null && test(c);
  };
  switch (op) {
    case "eq":
      return equals(actual, value);
    case "ne":
      return !equals(actual, value);
    case "gt":
      return ordered((c) => c > 0);
    case "gte":
      return ordered((c) => c >= 0);
    case "lt":
      return ordered((c) => c < 0);
    case "lte":
      return ordered((c) => c <= 0);
    case "between": {
      if (!Array.isArray(value) || value.length !== 2) return false;
      const low = compare(actual, value[0]);
      const high = compare(actual, value[1]);
      return low !== null && high !== null && low >= 0 && high <= 0;
    }
    case "in":
      return Array.isArray(value) && value.some((item) => equals(actual, item));
    case "nin":
      return Array.isArray(value) && !value.some((item) => equals(actual, item));
    case "contains":
      return contains(actual, value);
    case "not_contains":
      if (actual === undefined || actual === null) return true;
      return (typeof actual === "string" || Array.isArray(actual)) && !contains(actual, value);
    case "contains_all":
      return Array.isArray(actual) && Array.isArray(value) && value.every((item) => contains(actual, item));
    case "starts_with":
      return typeof actual === "string" && isText(value) && actual.startsWith(String(value));
    case "ends_with":
      return typeof actual === "string" && isText(value) && actual.endsWith(String(value));
    case "exists":
      return actual !== undefined && actual !== null;
    case "not_exists":
      return actual === undefined || actual === null;
    case "empty":
      return isEmpty(actual);
    case "not_empty":
      return !isEmpty(actual);
    case "before": {
      const times = orderedTimes(actual, value, now);
      return times !== null && times[0] < times[1];
    }
    case "after": {
      const times = orderedTimes(actual, value, now);
      return times !== null && times[0] > times[1];
    }
    default:
      // Stored workflows may predate an op's removal; an unknown op never holds.
      op satisfies never;
      return false;
  }
}

const isLeaf = (node: Condition): node is Leaf => isRecord(node) && typeof (node as Partial<Leaf>).field === "string";

/** With `onLeaf`, every leaf is evaluated (for explanations); without, all/any stop at the first decisive child. */
function walk(node: Condition, ctx: TemplateContext, now: Date, onLeaf: ((leaf: LeafResult) => void) | null): boolean {
  if (!isRecord(node)) return false;
  if (isLeaf(node)) {
    const actual = readField(ctx, node.field);
    const result = evaluateLeaf(node.op, actual, node.value, now);
    onLeaf?.({ field: node.field, op: node.op, value: node.value, actual, result });
    return result;
  }
  const visit = (child: Condition) => walk(child, ctx, now, onLeaf);
  if ("all" in node && Array.isArray(node.all)) return onLeaf ? node.all.map(visit).every(Boolean) : node.all.every(visit);
  if ("any" in node && Array.isArray(node.any)) return onLeaf ? node.any.map(visit).some(Boolean) : node.any.some(visit);
  if ("not" in node && isRecord(node.not)) return !visit(node.not);
  return false;
}

/** Whether a step's `if` holds. Never throws: odd shapes and mismatched types read as false. */
export function evaluateCondition(condition: Condition, ctx: TemplateContext, now: Date): boolean {
  return walk(condition, ctx, now, null);
}

/** The result plus every leaf's outcome, all leaves evaluated, for the preview. */
export function explainCondition(condition: Condition, ctx: TemplateContext, now: Date): ConditionExplanation {
  const leaves: LeafResult[] = [];
  const result = walk(condition, ctx, now, (leaf) => leaves.push(leaf));
  return { result, leaves };
}
