import type { TranslationKeys } from "../../contract/translations";
import type { Mode } from "../../engine/templates";

/**
 * What the save-time checks of templates read of an environment: its layouts' keys, its
 * partials, its default locale's keys. An environment's `Data` is one; a push checks against
 * another, the environment as it will be once everything pushed has landed.
 */
export interface ContentReads {
  layouts: { all(): Promise<{ key: string }[]> };
  partials: { all(): Promise<{ key: string; content: string; type: Mode }[]> };
  translations: {
    settings(): Promise<{ defaultLocale: string }>;
    find(locale: string): Promise<{ keys: TranslationKeys } | undefined>;
  };
}
