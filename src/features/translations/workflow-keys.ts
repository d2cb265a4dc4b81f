import type { Step } from "../../engine/steps";
import { translationKeysIn, translationUses } from "../../engine/translate";
import { ApiError } from "../../lib/errors";
import type { ContentReads } from "../content/reads";

type KeyUse = { path: (string | number)[]; key: string };

/**
 * Refuses templates that pass `t` a literal key the default locale lacks: every subscriber's
 * chain ends in the default locale, so such a key would render as itself for some. Costs nothing
 * for templates that use no `t`.
 */
async function refuseMissingKeys(data: ContentReads, uses: readonly KeyUse[]): Promise<void> {
  if (uses.length === 0) return;
  const { defaultLocale } = await data.translations.settings();
  const row = await data.translations.find(defaultLocale);
  const missing = uses.filter((use) => row?.keys[use.key] === undefined);
  if (missing.length === 0) return;
  const keys = [...new Set(missing.map((m) => `"${m.key}"`))].join(", ");
  throw new ApiError(
    "translation_key_missing",
    `The default locale "${defaultLocale}" has no key ${keys}: add it (PUT /v1/translations/${defaultLocale}) before a template uses it.`,
    missing.map((m) => ({ path: m.path.join("."), message: `No key "${m.key}" in the default locale "${defaultLocale}".` })),
  );
}

/** A workflow's channel templates (see refuseMissingKeys). */
export const checkTranslationKeys = (data: ContentReads, steps: readonly Step[]) => refuseMissingKeys(data, translationUses(steps));

/** A layout's or partial's fields (`html`, `text`, `content`), checked as a workflow's templates are. */
export const checkContentTranslationKeys = (data: ContentReads, fields: Record<string, string | null | undefined>) =>
  refuseMissingKeys(
    data,
    Object.entries(fields).flatMap(([field, source]) => (source ? translationKeysIn(source).map((key) => ({ path: [field], key })) : [])),
  );
