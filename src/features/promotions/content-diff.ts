import type { StoredBrand } from "../../db/queries/brand";
import type { TranslationRow } from "../../db/queries/translations";
import { translationUses } from "../../engine/translate";
import type { WorkflowDefinition } from "../../db/schema";
import { jsonPatch } from "../workflows/versions/json-patch";

/** What a promotion reads of an environment's brand and translations. */
export interface ContentSide {
  brand: StoredBrand;
  translations: Map<string, TranslationRow>;
  defaultLocale: string;
}

/** The brand: `added` when only the source saved one; a promotion never removes the target's. */
export function brandDiff(source: ContentSide, target: ContentSide) {
  if (source.brand.version === 0) return { status: target.brand.version === 0 ? ("unchanged" as const) : ("removed" as const), patch: [] };
  const patch = jsonPatch(target.brand.version === 0 ? {} : target.brand.definition, source.brand.definition);
  if (target.brand.version === 0) return { status: "added" as const, patch };
  return { status: patch.length === 0 ? ("unchanged" as const) : ("changed" as const), patch };
}

/** Per locale of either side, over the flat keys. */
export function translationsDiff(source: ContentSide, target: ContentSide) {
  const locales = [...new Set([...source.translations.keys(), ...target.translations.keys()])].sort();
  return locales.map((locale) => {
    const from = source.translations.get(locale);
    const to = target.translations.get(locale);
    if (!from) return { locale, status: "removed" as const, patch: [] };
    const patch = jsonPatch(to?.keys ?? {}, from.keys);
    if (!to) return { locale, status: "added" as const, patch };
    return { locale, status: patch.length === 0 ? ("unchanged" as const) : ("changed" as const), patch };
  });
}

/** The locales a promotion copies: those asked (or every added or changed one for `"all"`) that differ. */
export function localesToPromote(source: ContentSide, target: ContentSide, wanted: "all" | string[] | undefined) {
  if (wanted === undefined) return { locales: [], unknown: [] };
  const changed = new Set(
    translationsDiff(source, target)
      .filter((d) => d.status === "added" || d.status === "changed")
      .map((d) => d.locale),
  );
  const asked = wanted === "all" ? [...changed] : [...new Set(wanted)];
  return { locales: asked.filter((l) => changed.has(l)), unknown: asked.filter((l) => !source.translations.has(l)) };
}

/**
 * `t` keys of the promoted workflows that the target's default locale would still lack after the
 * promotion: a workflow is never promoted to render keys as themselves; the dry run says the same.
 */
export function missingKeysAfter(definitions: WorkflowDefinition[], source: ContentSide, target: ContentSide, locales: string[]) {
  const promotedDefault = locales.includes(target.defaultLocale) ? source.translations.get(target.defaultLocale) : undefined;
  const keys = (promotedDefault ?? target.translations.get(target.defaultLocale))?.keys ?? {};
  return definitions.flatMap((definition) =>
    translationUses(definition.steps)
      .filter((use) => keys[use.key] === undefined)
      .map((use) => ({ workflow: definition.key, path: use.path.join("."), key: use.key })),
  );
}
