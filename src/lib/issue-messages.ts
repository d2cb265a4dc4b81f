// Validation messages a person can read. zod's own wording ("Too small: expected string to have
// >=1 characters") is for developers; a message a schema sets itself is kept as written.
import { z } from "zod";

/** What fieldErrors receives: a zod issue, or an issue-like object built by hand (path and message only). */
export interface IssueLike {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
}

/** An issue's code-specific details (minimum, origin, values, ...). */
type Details = IssueLike & Record<string, unknown>;

const zodWording = z.locales.en().localeError;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const num = (value: unknown) => (typeof value === "bigint" ? Number(value) : typeof value === "number" ? value : Number.NaN);

const FORMATS: Record<string, string> = {
  email: "Enter an email address, like name@example.com",
  url: "Enter a full URL, like https://example.com",
  uuid: "Enter a UUID",
  datetime: "Enter a date and time, like 2026-01-31T09:00:00Z",
  date: "Enter a date, like 2026-01-31",
  duration: "Enter an ISO 8601 duration, like PT15M",
  regex: "Not in the expected format",
};

function sizeWords(issue: Details, bound: "minimum" | "maximum"): string | undefined {
  const n = num(issue[bound]);
  if (Number.isNaN(n)) return undefined;
  const exclusive = issue.inclusive === false;
  const atLeast = bound === "minimum";
  switch (issue.origin) {
    case "string":
      if (atLeast && n === 1 && !exclusive) return "Required";
      return atLeast ? `At least ${plural(exclusive ? n + 1 : n, "character")}` : `At most ${plural(exclusive ? n - 1 : n, "character")}`;
    case "array":
    case "set":
      return atLeast ? `At least ${plural(exclusive ? n + 1 : n, "item")}` : `At most ${plural(exclusive ? n - 1 : n, "item")}`;
    case "number":
    case "int":
    case "bigint":
      if (atLeast) return exclusive ? `Must be more than ${n}` : `Must be ${n} or more`;
      return exclusive ? `Must be less than ${n}` : `Must be ${n} or less`;
    default:
      return undefined;
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "a list",
  date: "a date",
};

function words(issue: Details): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === undefined || issue.message.endsWith("received undefined")
        ? "Required"
        : `Must be ${TYPE_WORDS[String(issue.expected)] ?? String(issue.expected)}`;
    case "too_small":
      return sizeWords(issue, "minimum");
    case "too_big":
      return sizeWords(issue, "maximum");
    case "invalid_value": {
      const values = Array.isArray(issue.values) ? issue.values.map((v) => JSON.stringify(v)) : [];
      return values.length === 1 ? `Must be ${values[0]}` : `Must be one of ${values.join(", ")}`;
    }
    case "invalid_format":
      return FORMATS[String(issue.format)] ?? "Not in the expected format";
    case "unrecognized_keys":
      return Array.isArray(issue.keys) && issue.keys.length > 1
        ? `Unknown fields: ${issue.keys.join(", ")}`
        : `Unknown field: ${Array.isArray(issue.keys) ? issue.keys.join("") : ""}`;
    case "not_multiple_of":
      return `Must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return "Not one of the accepted forms";
    default:
      return undefined;
  }
}

/** zod's wording for an issue (which the schema did not replace): a "received …" part varies with the input, so invalid_type is matched by its start. */
function isZodWording(issue: IssueLike): boolean {
  if (!issue.code) return false;
  if (issue.code === "invalid_type") return issue.message.startsWith("Invalid input: expected");
  try {
    return issue.message === zodWording(issue as Parameters<typeof zodWording>[0]);
  } catch {
    return false;
  }
}

/** The issue's message in words when it is zod's default wording; a schema's own message unchanged. */
export const issueMessage = (issue: IssueLike): string =>
  isZodWording(issue) ? (words(issue as Details) ?? issue.message) : issue.message;
