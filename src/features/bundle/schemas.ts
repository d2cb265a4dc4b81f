import { z } from "@hono/zod-openapi";
import { BrandDefinition } from "../brand/schemas";
import { LayoutInput } from "../layouts/schemas";
import { PartialInput } from "../partials/schemas";
import { Locale, TranslationInput } from "../translations/schemas";
import { WorkflowInput } from "../workflows/schemas";
import { PatchOperation } from "../workflows/versions/schemas";

/** A locale's keys as `PUT /v1/translations/{locale}` takes them, each text checked the same way. */
const PushedLocale = z
  .object({ locale: Locale, keys: z.record(z.string(), z.unknown()) })
  .strict()
  .transform((input, ctx) => {
    const parsed = TranslationInput.safeParse({ keys: input.keys });
    if (parsed.success) return { locale: input.locale, keys: parsed.data.keys };
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  });

const unique = <T>(items: readonly T[], keyOf: (item: T) => string) => new Set(items.map(keyOf)).size === items.length;

export const PushInput = z
  .object({
    workflows: z.array(WorkflowInput).max(500).default([]),
    layouts: z.array(LayoutInput).max(200).default([]),
    partials: z.array(PartialInput).max(500).default([]),
    brand: BrandDefinition.nullable()
      .default(null)
      .openapi({ description: "The brand; null or absent: left as it is (a brand is never removed)." }),
    translations: z.array(PushedLocale).max(200).default([]),
    prune: z
      .boolean()
      .default(false)
      .openapi({ description: "Delete the workflows, layouts, partials and locales of the environment that the push does not hold." }),
    dryRun: z.boolean().default(false).openapi({ description: "Answer what the push would change, and change nothing." }),
  })
  .strict()
  .superRefine((input, ctx) => {
    const keyed: [string, { key: string }[]][] = [
      ["workflows", input.workflows],
      ["layouts", input.layouts],
      ["partials", input.partials],
    ];
    for (const [field, items] of keyed) {
      if (!unique(items, (i) => i.key)) ctx.addIssue({ code: "custom", path: [field], message: "Each key at most once." });
    }
    if (!unique(input.translations, (t) => t.locale))
      ctx.addIssue({ code: "custom", path: ["translations"], message: "Each locale at most once." });
  })
  .openapi("PushInput", {
    example: {
      workflows: [{ key: "welcome", name: "Welcome", steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } }] }],
      translations: [{ locale: "en", keys: { welcome: { subject: "Welcome" } } }],
      dryRun: true,
    },
  });
export type PushInput = z.infer<typeof PushInput>;

export const PUSH_RESOURCES = ["workflow", "layout", "partial", "brand", "translations"] as const;
export type PushResource = (typeof PUSH_RESOURCES)[number];

export const PushChange = z
  .object({
    resource: z.enum(PUSH_RESOURCES),
    key: z.string().openapi({ description: "The workflow's, layout's or partial's key, the locale, or `brand`." }),
    change: z.enum(["added", "changed", "removed", "unchanged"]),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902: what the push does to the current content (empty when removed)." }),
    version: z.number().int().openapi({ description: "Its version once pushed: a new one when added, changed or removed." }),
  })
  .openapi("PushChange");
export type PushChange = z.infer<typeof PushChange>;

export const PushResult = z.object({ dryRun: z.boolean(), changes: z.array(PushChange) }).openapi("PushResult");
