const normalise = (tag: string) => tag.trim().toLowerCase().replaceAll("_", "-");
const languageOf = (tag: string) => normalise(tag).split("-")[0] ?? "";

/**
 * Picks a step's localised template: the exact tag (case-insensitive), then the bare language (`de` for
 * `de-CH`), then any variant of that language (`de-AT`), then the base template (reported as locale null).
 */
export function pickLocalized<T>(
  base: T,
  variants: Record<string, T> | undefined,
  locale: string | null | undefined,
): { template: T; locale: string | null } {
  if (!variants || !locale) return { template: base, locale: null };
  const wanted = normalise(locale);
  const language = languageOf(locale);
  const entries = Object.entries(variants);
  const found =
    entries.find(([tag]) => normalise(tag) === wanted) ??
    entries.find(([tag]) => normalise(tag) === language) ??
    entries.find(([tag]) => languageOf(tag) === language);
  return found ? { template: found[1], locale: found[0] } : { template: base, locale: null };
}

/**
 * A localised template: the variant's fields over the base template's, so a variant that only
 * translates the subject still sends the base body.
 */
export function localizedTemplate<T extends object>(
  base: T,
  variants: Record<string, Partial<T>> | undefined,
  locale: string | null | undefined,
): { template: T; locale: string | null } {
  const picked = pickLocalized<Partial<T>>(base, variants, locale);
  if (picked.locale === null) return { template: base, locale: null };
  const given = Object.entries(picked.template).filter(([, value]) => value !== undefined);
  return { template: { ...base, ...Object.fromEntries(given) } as T, locale: picked.locale };
}

/** Every locale variant of a step merged over its base template, by tag. */
export function everyLocalized<T extends object>(base: T, variants: Record<string, Partial<T>> | undefined): [string, T][] {
  return Object.keys(variants ?? {}).map((tag) => [tag, localizedTemplate(base, variants, tag).template]);
}
