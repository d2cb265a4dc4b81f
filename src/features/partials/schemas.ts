import { z } from "@hono/zod-openapi";
import { ContentKey, keyedContentSchemas } from "../content/schemas";

const PARTIAL_TYPES = ["html", "text"] as const;

export const PartialInput = z
  .object({
    key: ContentKey.openapi({ example: "footer" }),
    name: z.string().min(1).max(256),
    description: z.string().max(2000).nullable().optional(),
    content: z
      .string()
      .min(1)
      .max(100_000)
      .openapi({ description: 'Liquid; sees only the arguments of the `{% render "key", name: value %}` that renders it.' }),
    type: z
      .enum(PARTIAL_TYPES)
      .openapi({ description: "`html`: parsed and rendered with HTML escaping (email HTML); `text`: as plain text." }),
  })
  .strict()
  .openapi("PartialInput", {
    example: { key: "footer", name: "Footer", content: '<p><a href="{{ url }}">{{ cta }}</a></p>', type: "html" },
  });
export type PartialInput = z.infer<typeof PartialInput>;

export const partialSchemas = keyedContentSchemas("Partial", PartialInput, { content: z.string(), type: z.enum(PARTIAL_TYPES) }, "footer");
export const { Item: Partial, Version: PartialVersion, cursor: partialCursor } = partialSchemas;
export type Partial = z.infer<typeof Partial>;
export type PartialVersion = z.infer<typeof PartialVersion>;
