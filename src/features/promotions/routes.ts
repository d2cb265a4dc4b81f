import { apiRoute, createRouter, json } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { adminSecurity } from "../environments/admin-routes";
import { promotionDiff } from "./diff";
import { environmentsOf, promote } from "./promote";
import { PromotionDiff, PromotionDiffQuery, PromotionInput, PromotionResult } from "./schemas";

export const promotionsRoutes = createRouter();

const tags = ["Admin"];

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
    const { sourceContents, targetContents } = await environmentsOf(c.env, from, to);
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
  async (c) => c.json(await promote(c.env, c.req.valid("json"), auditContextOf(c)), 200),
);
