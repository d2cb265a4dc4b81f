import type { Context } from "hono";
import { unscopedDb } from "../../db/unscoped";
import type { Db } from "../../db/client";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import type { Actor, AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { adminSecurity } from "../environments/admin-routes";
import { dataOf } from "../data";
import { promotionDiff, promotionPlan } from "./diff";
import { promotionReads } from "./repository";
import { applyContent, type ContentPlan, contentPlan } from "./content-apply";
import { applyDefinitions, type PromotionPlan } from "./definitions-apply";
import { PromotionDiff, PromotionDiffQuery, PromotionInput, PromotionResult } from "./schemas";

export const promotionsRoutes = createRouter();

const tags = ["Admin"];

/** Both environments' contents, or 404 naming the one that does not exist. */
async function environmentsOf(c: Context<AppEnv>, from: string, to: string) {
  const reads = promotionReads(unscopedDb(c.env));
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

promotionsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/admin/promotions/diff",
    tags,
    summary: "Compare two environments before a promotion",
    description:
      "Per workflow, `added | changed | removed | unchanged` with the JSON Patch promoting it would apply to the target; variables by key (secret values are never read: a secret the target lacks `needs_value`); integrations by provider and name only (credentials are never compared nor copied).",
    security: adminSecurity,
    request: { query: PromotionDiffQuery },
    responses: { 200: { description: "The difference", content: json(PromotionDiff) } },
    errors: ["environment_not_found"],
  }),
  async (c) => {
    const { from, to } = c.req.valid("query");
    const { sourceContents, targetContents } = await environmentsOf(c, from, to);
    return c.json({ from, to, ...promotionDiff(sourceContents, targetContents) }, 200);
  },
);

promotionsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/admin/promotions",
    tags,
    summary: "Promote workflows from one environment to another",
    description:
      'Each promoted workflow that is new or changed becomes a new version in the target, authored "promotion from <from>"; unchanged ones are left alone, and a promotion never deletes. Variables and integrations are not copied: `needsValue` lists the secret variables to set in the target by hand. `dryRun: true` answers exactly what the promotion would do, and does nothing. Every promoted workflow is in the target\'s audit log, and the promotion itself in the audit logs of both.',
    security: adminSecurity,
    request: { body: { required: true, content: json(PromotionInput) } },
    responses: { 200: { description: "What was promoted (or would be)", content: json(PromotionResult) } },
    errors: ["environment_not_found", "workflow_not_found", "translation_not_found", "translation_key_missing", "promotion_conflict"],
  }),
  async (c) => {
    const input = c.req.valid("json");
    const { source, target, sourceContents, targetContents } = await environmentsOf(c, input.from, input.to);
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
    if (input.dryRun) return c.json({ ...result, dryRun: true }, 200);

    const db = unscopedDb(c.env);
    const context = auditContextOf(c);
    const author: Actor = { type: "admin", id: null, name: `promotion from ${input.from}` };
    const targetData = dataOf(c.env, target.id);
    // Texts and brand first: the promoted workflows' `t` keys are there before they are.
    await applyContent(targetData, content, sourceContents, context, author);
    await applyDefinitions(targetData, plan, sourceContents, input, context, author);
    await recordPromotion(db, context, source, target, input, plan, content);
    return c.json({ ...result, dryRun: false }, 200);
  },
);
