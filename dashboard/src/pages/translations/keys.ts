// Nested translation files ⇄ the grid's dotted keys; the server flattens the same way (src/engine/translate.ts).

const PLURALS = new Set(["zero", "one", "two", "few", "many", "other"]);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPlural = (v: unknown) => isRecord(v) && "other" in v && Object.keys(v).every((k) => PLURALS.has(k));

/** `{a: {b: "x"}}` → `{"a.b": "x"}`; plural forms stay one value. */
export function flatten(nested: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(nested)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isRecord(value) && !isPlural(value)) Object.assign(out, flatten(value, path));
    else out[path] = value;
  }
  return out;
}

/** A cell's text for reading: a plural value shows its forms. */
export const cellText = (value: unknown) =>
  typeof value === "string"
    ? value
    : isRecord(value)
      ? Object.entries(value)
          .map(([form, text]) => `${form}: ${String(text)}`)
          .join(" · ")
      : "";

export const isPluralValue = isPlural;
