import { unscopedDb } from "../../db/unscoped";
import type { Db } from "../../db/client";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import type { Actor, Bindings } from "../../env";
import { ApiError } from "../../lib/errors";
import { dataOf } from "../data";
import { promotionPlan } from "./diff";
import { promotionReads } from "./repository";
import { applyContent, type ContentPlan, contentPlan } from "./content-apply";
import { applyDefinitions, type PromotionPlan } from "./definitions-apply";
import type { PromotionInput, PromotionResult } from "./schemas";

/** Both environments' contents, or 404 naming the one that does not exist. */
export async function environmentsOf(env: Bindings, from: string, to: string) {
  const reads = promotionReads(unscopedDb(env));
  const [source, target] = await Promise.all([reads.environment(from), reads.environment(to)]);
  for (const [slug, found] of [
    [from, source],
    [to, target],
  ] as const) {
    if (!found) throw new ApiError("environment_not_found", `No environment with slug "${slug}".`);
  }
  const [sourceContents, targetContents] = await Promise.all([reads.contents(source!.id), reads.contents(target!.id)]);
  return { source: source!, target: target!, sourceContents, targetContents };
}

/**
 * The promotion as one entry in each environment, beside each promoted workflow's own in the
 * target (written in that workflow's batch): the source's log shows where its workflows went.
 */
async function recordPromotion(
  db: Db,
  context: AuditContext,
  source: { id: string; slug: string },
  target: { id: string; slug: string },
  input: { from: string; to: string },
  plan: PromotionPlan,
  content: ContentPlan,
) {
  const entry = {
    resource: "promotion",
    resourceId: `${source.slug}:${target.slug}`,
    action: "promoted",
    before: null,
    after: {
      from: input.from,
      to: input.to,
      workflows: plan.workflows.map(({ key, outcome, version }) => ({ key, outcome, version })),
      layouts: plan.layouts,
      partials: plan.partials,
      brand: content.result.brand,
      translations: content.result.translations,
    },
  } as const;
  await db.batch([
    auditStatement(db, context, { ...entry, environmentId: target.id }, "always"),
    auditStatement(db, context, { ...entry, environmentId: source.id }, "always"),
  ]);
}

/**
 * Promotes from one environment to another (`POST /v1/admin/promotions`, the MCP `promote`
 * tool): each new or changed workflow a new version in the target; `dryRun` answers the same and
 * does nothing.
 */
export async function promote(env: Bindings, input: PromotionInput, context: AuditContext): Promise<PromotionResult> {
  const { source, target, sourceContents, targetContents } = await environmentsOf(env, input.from, input.to);
  const plan = promotionPlan(sourceContents, targetContents, input.workflows);
  if (plan.unknown.length > 0) {
    throw new ApiError("workflow_not_found", `No workflow ${plan.unknown.map((k) => `"${k}"`).join(", ")} in "${input.from}".`);
  }
  if (plan.missing.length > 0) {
    throw new ApiError(
      "validation_failed",
      `The workflows render or trigger what "${input.to}" would not have: ${plan.missing.join(", ")}. Nothing was promoted.`,
      plan.missing.map((m) => ({ path: "workflows", message: `Missing ${m}.` })),
    );
  }
  const content = contentPlan(input, sourceContents, targetContents, plan.workflows);
  const result = {
    from: input.from,
    to: input.to,
    workflows: plan.workflows,
    layouts: plan.layouts,
    partials: plan.partials,
    needsValue: plan.needsValue,
    ...content.result,
  };
  if (input.dryRun) return { ...result, dryRun: true };

  const author: Actor = { type: "admin", id: null, name: `promotion from ${input.from}` };
  const targetData = dataOf(env, target.id);
  // Texts and brand first: the promoted workflows' `t` keys are there before they are.
  await applyContent(targetData, content, sourceContents, context, author);
  await applyDefinitions(targetData, plan, sourceContents, input, context, author);
  await recordPromotion(unscopedDb(env), context, source, target, input, plan, content);
  return { ...result, dryRun: false };
}
