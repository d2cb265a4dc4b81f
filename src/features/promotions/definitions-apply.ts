import type { AuditContext } from "../../db/queries/audit";
import type { Actor } from "../../env";
import { ApiError } from "../../lib/errors";
import type { Data } from "../data";
import type { promotionPlan } from "./diff";
import type { EnvironmentContents } from "./repository";

export type PromotionPlan = ReturnType<typeof promotionPlan>;

/**
 * Lands a promotion's partials, layouts and workflows in the target, each new or changed one a new
 * version authored `author`, written only if the target's version is still the one planned from:
 * otherwise \`promotion_conflict\`, naming the workflows already promoted.
 */
export async function applyDefinitions(
  target: Data,
  plan: PromotionPlan,
  sourceContents: EnvironmentContents,
  { from, to }: { from: string; to: string },
  context: AuditContext,
  author: Actor,
): Promise<void> {
  const { workflows, layouts, partials } = target;
  const done: string[] = [];
  // What the workflows render lands first: a workflow never arrives before its layout or partials.
  for (const step of plan.partials) {
    if (step.outcome === "unchanged") continue;
    const definition = sourceContents.partials.get(step.key)!.definition;
    const record = { author, auditAction: "promoted" as const };
    const landed =
      step.outcome === "created"
        ? (await partials.create(definition, context, record)) !== null
        : (
            await partials.update(step.key, definition, context, {
              ...record,
              ifMatch: [step.version - 1],
              summary: `Promoted from ${from}`,
            })
          ).status === "ok";
    if (!landed)
      throw new ApiError("promotion_conflict", `Partial "${step.key}" changed in "${to}" while promoting: nothing was promoted.`);
  }
  for (const step of plan.layouts) {
    if (step.outcome === "unchanged") continue;
    const definition = plan.layoutDefinitions.get(step.key)!;
    const record = { author, auditAction: "promoted" as const };
    const landed =
      step.outcome === "created"
        ? (await layouts.create(definition, context, record)) !== null
        : (
            await layouts.update(step.key, definition, context, {
              ...record,
              ifMatch: [step.version - 1],
              summary: `Promoted from ${from}`,
            })
          ).status === "ok";
    if (!landed) throw new ApiError("promotion_conflict", `Layout "${step.key}" changed in "${to}" while promoting: nothing was promoted.`);
  }
  for (const step of plan.workflows) {
    if (step.outcome === "unchanged") continue;
    const definition = sourceContents.workflows.get(step.key)!.definition;
    const record = { author, auditAction: "promoted" as const };
    const landed =
      step.outcome === "created"
        ? (await workflows.create(definition, context, record)) !== null
        : (
            await workflows.update(step.key, definition, context, {
              ...record,
              ifMatch: [step.version - 1],
              summary: `Promoted from ${from}`,
            })
          ).status === "ok";
    if (!landed) {
      const promoted = done.length > 0 ? `${done.map((k) => `"${k}"`).join(", ")} were promoted` : "nothing was promoted";
      throw new ApiError("promotion_conflict", `Workflow "${step.key}" changed in "${to}" while promoting: ${promoted}.`);
    }
    done.push(step.key);
  }
}
