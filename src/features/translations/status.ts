import type { TranslationRow } from "../../db/queries/translations";

/** Per locale, the default locale's keys it lacks and those whose default text changed at a later revision than its own. */
export function translationStatus(defaultLocale: string, rows: readonly Pick<TranslationRow, "locale" | "keys" | "keyRevisions">[]) {
  const base = rows.find((r) => r.locale.toLowerCase() === defaultLocale.toLowerCase());
  const keys = base ? Object.keys(base.keys).sort() : [];
  const locales = rows
    .filter((r) => r !== base)
    .map((r) => ({
      locale: r.locale,
      missing: keys.filter((k) => !(k in r.keys)),
      outdated: keys.filter((k) => k in r.keys && (base!.keyRevisions[k] ?? 0) > (r.keyRevisions[k] ?? 0)),
    }));
  return { defaultLocale, keys, locales };
}
