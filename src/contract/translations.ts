// Translation values' shape, with no imports: the D1 schema, the engine and the API read it from here.

export const PLURAL_CATEGORIES = ["zero", "one", "two", "few", "many", "other"] as const;
export type PluralCategory = (typeof PLURAL_CATEGORIES)[number];

/** A translation's text: one string, or one per plural category. */
export type TranslationValue = string | Partial<Record<PluralCategory, string>>;
/** A locale's keys, flattened (`cart.items`). */
export type TranslationKeys = Record<string, TranslationValue>;
