import type { Step } from "../../engine/steps";
import { translationUses } from "../../engine/translate";
import { ApiError } from "../../lib/errors";
import type { Data } from "../data";

/**
 * Refuses a workflow whose templates pass `t` a literal key the default locale lacks: every
 * subscriber's chain ends in the default locale, so such a key would render as itself for some.
 * Costs nothing for a workflow that uses no `t`.
 */
export async function checkTranslationKeys(data: Data, steps: readonly Step[]): Promise<void> {
  const uses = translationUses(steps);
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
