import { type ReachableContent, renderMentions } from "../../engine/render-mentions";
import { localeChain, TRANSLATOR, translator } from "../../engine/translate";
import type { Data } from "../data";
import type { PreviewExtras } from "../workflows/preview";

/**
 * A preview renders with the brand and texts as they are now, in the sample subscriber's locale;
 * read only when the steps, or the layouts and partials they may render, use them.
 */
export async function previewInputs(
  data: Data,
  steps: readonly unknown[],
  locale: unknown,
  content: ReachableContent,
): Promise<PreviewExtras> {
  const { brand: wantsBrand, texts: wantsTexts } = renderMentions(steps, content);
  const [brand, rows, settings] = await Promise.all([
    wantsBrand ? data.brand.get() : undefined,
    wantsTexts ? data.translations.list() : undefined,
    wantsTexts ? data.translations.settings() : undefined,
  ]);
  const extras: PreviewExtras = brand ? { brand: brand.definition } : {};
  if (rows && settings) {
    const dictionaries = new Map(rows.map((r) => [r.locale, r.keys]));
    extras[TRANSLATOR] = translator(dictionaries, localeChain(typeof locale === "string" ? locale : null, settings.defaultLocale));
  }
  return extras;
}
