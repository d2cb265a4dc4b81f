import type { BrandDefinition } from "../../contract/brand";
import type { Db } from "../../db/client";
import { brandAt } from "../../db/queries/brand";
import { DEFAULT_LOCALE, translationsAt, translationsRepository } from "../../db/queries/translations";
import type { Step } from "../../engine/steps";
import { type ReachableContent, renderMentions } from "../../engine/render-mentions";
import { localeChain, translator, type Translator } from "../../engine/translate";
import type { TriggerRecord } from "../../jobs/trigger-record";

/** What a trigger's templates render with beyond its own data: the brand and texts pinned when it was accepted. */
export interface RenderInputs {
  brand: BrandDefinition | undefined;
  translatorFor(subscriberLocale: string | null): Translator | undefined;
  /** Whether a template (or a layout or partial) names `unsubscribe_url` or `preferences_url`. */
  links: boolean;
}

const NONE = { brand: undefined, translatorFor: () => undefined } as const;

/**
 * Read only when the workflow's templates, or the layouts and partials pinned with it, name them,
 * and each pinned version once per isolate (versions never change): a workflow without `brand` or
 * `t` costs no read at all.
 */
export async function renderInputs(
  db: Db,
  environmentId: string,
  trigger: TriggerRecord,
  steps: readonly Step[],
  content?: ReachableContent,
): Promise<RenderInputs> {
  const { brand: wantsBrand, texts: wantsTexts, links } = renderMentions(steps, content);
  if (!wantsBrand && !wantsTexts) return { ...NONE, links };
  const [brand, dictionaries] = await Promise.all([
    wantsBrand ? brandAt(db, environmentId, trigger.brandVersion) : undefined,
    wantsTexts ? translationsAt(db, environmentId, trigger.translationsRevision) : undefined,
  ]);

  const defaultLocale = trigger.defaultLocale ?? (wantsTexts ? await currentDefault(db, environmentId) : DEFAULT_LOCALE);
  return {
    brand,
    translatorFor: (locale) => (dictionaries ? translator(dictionaries, localeChain(locale, defaultLocale)) : undefined),
    links,
  };
}

/** An older record has no default locale pinned: the one set now. */
const currentDefault = async (db: Db, environmentId: string) => (await translationsRepository(db, environmentId).settings()).defaultLocale;
