import { z } from "@hono/zod-openapi";
import { PatchOperation, VersionChange } from "../workflows/versions/schemas";
import { Locale } from "../translations/schemas";

const slug = z.string().min(1).max(64).openapi({ example: "development" });

export const PromotionDiffQuery = z
  .object({ from: slug.openapi({ description: "The environment to promote from." }), to: slug.openapi({ example: "production" }) })
  .refine((q) => q.from !== q.to, { message: "`from` and `to` must be different environments.", path: ["to"] });

export const WorkflowPromotionDiff = z
  .object({
    key: z.string(),
    status: z.enum(["added", "changed", "removed", "unchanged"]).openapi({
      description:
        "`added`: only in `from`; `removed`: only in `to` (a promotion never deletes it); `changed`/`unchanged`: in both, `patch` leads from `to`'s content to `from`'s.",
    }),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902: what promoting it would do to the target's definition." }),
    changes: z.array(VersionChange),
  })
  .openapi("WorkflowPromotionDiff");

export const VariablePromotionDiff = z
  .object({
    key: z.string(),
    secret: z.boolean(),
    status: z.enum(["added", "changed", "unchanged", "removed", "needs_value", "present"]).openapi({
      description:
        "Plain variables by value: `added`, `changed`, `unchanged`, `removed` (only in the target). Secret ones are never read: `needs_value` when the target lacks the key (set it there by hand), `present` when it has one.",
    }),
  })
  .openapi("VariablePromotionDiff");

export const IntegrationPromotionDiff = z
  .object({
    provider: z.string(),
    name: z.string(),
    channel: z.string(),
    status: z.enum(["added", "removed", "unchanged"]).openapi({
      description: "By provider and name only: `added` when only `from` has it. Credentials are never compared nor copied.",
    }),
    developmentOnly: z.boolean().openapi({
      description:
        "A sandbox provider (`sandbox-email`, ...): it sends nothing, so it is for development only; the target needs a real provider of that channel, not a copy of it.",
    }),
  })
  .openapi("IntegrationPromotionDiff");

export const ContentPromotionDiff = z
  .object({
    key: z.string(),
    status: z.enum(["added", "changed", "removed", "unchanged"]),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902: what promoting it would do to the target's definition." }),
  })
  .openapi("ContentPromotionDiff");

export const PromotionDiff = z
  .object({
    from: z.string(),
    to: z.string(),
    workflows: z.array(WorkflowPromotionDiff),
    variables: z.array(VariablePromotionDiff),
    integrations: z.array(IntegrationPromotionDiff),
    layouts: z.array(ContentPromotionDiff),
    partials: z.array(ContentPromotionDiff),
    brand: z
      .object({ status: z.enum(["added", "changed", "removed", "unchanged"]), patch: z.array(PatchOperation) })
      .openapi({ description: "`removed`: only the target saved a brand (a promotion never removes it)." }),
    translations: z.array(
      z.object({ locale: z.string(), status: z.enum(["added", "changed", "removed", "unchanged"]), patch: z.array(PatchOperation) }),
    ),
  })
  .openapi("PromotionDiff");
export type PromotionDiff = z.infer<typeof PromotionDiff>;

export const PromotionInput = z
  .object({
    from: slug,
    to: slug.openapi({ example: "production" }),
    workflows: z
      .union([z.literal("all"), z.array(z.string().min(1).max(64)).max(500)])
      .openapi({ description: '`"all"`: every workflow of `from` that is added or changed; or the keys to promote (`[]`: none).' }),
    brand: z
      .boolean()
      .default(false)
      .openapi({ description: "Copy `from`'s brand too (a new brand version in the target when it differs)." }),
    translations: z
      .union([z.literal("all"), z.array(Locale).max(200)])
      .optional()
      .openapi({ description: '`"all"`: every locale of `from` that is added or changed; or the locales to copy. Absent: none.' }),
    dryRun: z.boolean().default(false).openapi({ description: "Answer what the promotion would do, and do nothing." }),
  })
  .strict()
  .refine((p) => p.from !== p.to, { message: "`from` and `to` must be different environments.", path: ["to"] })
  .openapi("PromotionInput", { example: { from: "development", to: "production", workflows: ["order-shipped"], dryRun: true } });
export type PromotionInput = z.infer<typeof PromotionInput>;

export const PromotedWorkflow = z
  .object({
    key: z.string(),
    outcome: z.enum(["created", "updated", "unchanged"]),
    version: z.number().int().openapi({ description: "The target's version of it after the promotion (a new one unless unchanged)." }),
    patch: z.array(PatchOperation),
  })
  .openapi("PromotedWorkflow");
export type PromotedWorkflow = z.infer<typeof PromotedWorkflow>;

export const PromotedContent = z
  .object({
    key: z.string(),
    outcome: z.enum(["created", "updated", "unchanged"]),
    version: z.number().int().openapi({ description: "The target's version of it after the promotion." }),
  })
  .openapi("PromotedContent");
export type PromotedContent = z.infer<typeof PromotedContent>;

export const PromotionResult = z
  .object({
    from: z.string(),
    to: z.string(),
    dryRun: z.boolean(),
    workflows: z.array(PromotedWorkflow),
    layouts: z.array(PromotedContent).openapi({ description: "The layouts the promoted workflows name, promoted with them." }),
    partials: z.array(PromotedContent).openapi({ description: "The partials they (and those layouts) render, promoted with them." }),
    needsValue: z
      .array(z.string())
      .openapi({ description: "Secret variables `from` has and `to` lacks: never copied, set them in the target by hand." }),
    brand: z
      .object({ outcome: z.enum(["created", "updated", "unchanged"]), version: z.number().int() })
      .nullable()
      .openapi({ description: "Null when the brand was not asked for." }),
    translations: z.array(z.object({ locale: z.string(), outcome: z.enum(["created", "updated"]), version: z.number().int() })),
  })
  .openapi("PromotionResult");
export type PromotionResult = z.infer<typeof PromotionResult>;
