import { z } from "@hono/zod-openapi";
import { ContentKey, keyedContentSchemas } from "../content/schemas";

const Liquid = z.string().max(100_000);

export const LayoutInput = z
  .object({
    key: ContentKey.openapi({ example: "default" }),
    name: z.string().min(1).max(256),
    description: z.string().max(2000).nullable().optional(),
    html: Liquid.min(1).openapi({ description: "Liquid HTML with `{{ content }}` once: the step's rendered HTML goes there." }),
    text: Liquid.nullable()
      .optional()
      .openapi({ description: "Liquid text with `{{ content }}` once; without it the text part is made from the HTML." }),
    isDefault: z
      .boolean()
      .default(false)
      .openapi({ description: "The environment's default layout (for email steps that name none); setting it moves the flag." }),
  })
  .strict()
  .openapi("LayoutInput", {
    example: { key: "default", name: "Default", html: "<html><body>{{ content }}</body></html>", isDefault: true },
  });
export type LayoutInput = z.infer<typeof LayoutInput>;

export const layoutSchemas = keyedContentSchemas(
  "Layout",
  LayoutInput,
  { html: z.string(), text: z.string().nullable(), isDefault: z.boolean() },
  "default",
);
export const { Item: Layout, Version: LayoutVersion, cursor: layoutCursor } = layoutSchemas;
export type Layout = z.infer<typeof Layout>;
export type LayoutVersion = z.infer<typeof LayoutVersion>;
