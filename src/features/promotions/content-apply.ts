import type { AuditContext } from "../../db/queries/audit";
import type { Actor } from "../../env";
import { ApiError } from "../../lib/errors";
import type { Data } from "../data";
import { forgetEnvironmentGates } from "../workflows/gate-cache";
import { brandDiff, type ContentSide, localesToPromote, missingKeysAfter } from "./content-diff";
import type { EnvironmentContents } from "./repository";
import type { PromotedWorkflow, PromotionInput } from "./schemas";

/**
 * What a promotion does to the brand and translations, decided before anything is written, so the
 * dry run answers the same and a refusal (an unknown locale, a workflow's `t` key the target would
 * lack) leaves the target untouched.
 */
export function contentPlan(
  input: PromotionInput,
  source: EnvironmentContents,
  target: EnvironmentContents,
  workflows: PromotedWorkflow[],
) {
  const { locales, unknown } = localesToPromote(source, target, input.translations);
  if (unknown.length > 0) {
    throw new ApiError("translation_not_found", `No translations for ${unknown.map((l) => `"${l}"`).join(", ")} in "${input.from}".`);
  }
  const promoted = workflows.filter((w) => w.outcome !== "unchanged").map((w) => source.workflows.get(w.key)!.definition);
  const missing = missingKeysAfter(promoted, source, target, locales);
  if (missing.length > 0) {
    throw new ApiError(
      "translation_key_missing",
      `"${input.to}"'s default locale "${target.defaultLocale}" lacks keys the promoted workflows use: promote it with them (translations: ["${target.defaultLocale}"]) or add the keys there. Nothing was promoted.`,
      missing.map((m) => ({ path: `${m.workflow}.${m.path}`, message: `No key "${m.key}" in "${input.to}"'s default locale.` })),
    );
  }
  const brandStatus = input.brand ? brandDiff(source, target).status : null;
  const brand =
    brandStatus === null || brandStatus === "removed"
      ? null
      : brandStatus === "unchanged"
        ? { outcome: "unchanged" as const, version: target.brand.version }
        : { outcome: brandStatus === "added" ? ("created" as const) : ("updated" as const), version: target.brand.version + 1 };
  const translations = locales.map((locale) => {
    const existing = target.translations.get(locale);
    return { locale, outcome: existing ? ("updated" as const) : ("created" as const), version: (existing?.version ?? 0) + 1 };
  });
  return { result: { brand, translations }, targetBrandVersion: target.brand.version };
}

export type ContentPlan = ReturnType<typeof contentPlan>;

/** Writes the plan to the target as new versions, authored by the promotion and audited as `promoted`. */
export async function applyContent(target: Data, plan: ContentPlan, source: ContentSide, context: AuditContext, author: Actor) {
  for (const { locale } of plan.result.translations) {
    await target.translations.put(locale, source.translations.get(locale)!.keys, context, { action: "promoted", author });
  }
  if (plan.result.brand && plan.result.brand.outcome !== "unchanged") {
    const saved = await target.brand.save(source.brand.definition, context, {
      action: "promoted",
      author,
      ifVersion: plan.targetBrandVersion,
    });
    if (saved.status === "stale")
      throw new ApiError("promotion_conflict", "The target's brand changed while promoting: diff again and promote what is left.");
  }
  forgetEnvironmentGates(target.environmentId);
}
