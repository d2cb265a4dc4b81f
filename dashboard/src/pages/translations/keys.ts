// Nested translation files ⇄ the grid's dotted keys; the server flattens the same way (src/engine/translate.ts).

/** CLDR's plural categories, in the order a reader expects them. */
export const PLURAL_ORDER = ["zero", "one", "two", "few", "many", "other"] as const;
export type PluralForm = (typeof PLURAL_ORDER)[number];
export type PluralValue = Partial<Record<PluralForm, string>>;
const PLURALS = new Set<string>(PLURAL_ORDER);
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

/** The forms a locale's grammar distinguishes (what `t` with `count:` picks among), and any already saved, in CLDR order. */
export function pluralForms(locale: string, saved: PluralValue): PluralForm[] {
  let categories: string[] = ["one", "other"];
  try {
    categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  } catch {
    // An unknown tag to this browser: English's forms, and whatever was saved.
  }
  return PLURAL_ORDER.filter((form) => categories.includes(form) || saved[form] !== undefined);
}

export const isPluralValue = isPlural;
