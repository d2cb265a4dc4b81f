import { z } from "@hono/zod-openapi";
import { destinationOptions } from "../../lib/destinations";
import { ApiError, fieldErrors } from "../../lib/errors";
import { Proposal } from "../proposals/schemas";
import { applyProposal } from "../proposals/service";
import { promote } from "../promotions/promote";
import { PromotionInput, PromotionResult } from "../promotions/schemas";
import { defineTool } from "./tool";

const applyProposalTool = defineTool({
  name: "apply_proposal",
  scope: "manage",
  title: "Apply a proposal",
  description:
    "Applies a pending proposal: one new version of its resource, in the audit log with the proposal's id. Refused when the resource changed since the proposal was made (`proposal_stale`) or its content does not validate.",
  input: z.object({ id: z.string().min(1).max(64).describe("The proposal's id (`prp_...`).") }),
  output: Proposal,
  run: ({ id }, { env, caller }) => applyProposal(caller.data, id, { context: caller.audit, destinations: destinationOptions(env) }),
});

const promoteTool = defineTool({
  name: "promote",
  scope: "manage",
  title: "Promote to another environment",
  description:
    "Promotes workflows (and optionally brand and translations) from this environment to another, as POST /v1/admin/promotions does. Always a dry run (what would change, changing nothing) unless the caller is the admin credential.",
  input: z.object({
    to: PromotionInput.shape.to,
    workflows: PromotionInput.shape.workflows,
    brand: PromotionInput.shape.brand,
    translations: PromotionInput.shape.translations,
    dryRun: z.boolean().default(true).describe("Only the admin credential can set this to false; for any other key it stays a dry run."),
  }),
  output: PromotionResult.extend({ note: z.string().nullable() }),
  async run(input, { env, caller }) {
    const parsed = PromotionInput.safeParse({ ...input, from: caller.slug, dryRun: input.dryRun || !caller.admin });
    if (!parsed.success) throw new ApiError("validation_failed", "The promotion is not valid.", fieldErrors(parsed.error.issues));
    const result = await promote(env, parsed.data, caller.audit);
    const forced = !caller.admin && !input.dryRun;
    return { ...result, note: forced ? "A dry run: only the admin credential promotes for real. Nothing was changed." : null };
  },
});

export const manageTools = [applyProposalTool, promoteTool];
