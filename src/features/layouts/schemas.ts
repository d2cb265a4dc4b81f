import { z } from "@hono/zod-openapi";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { PatchOperation, VersionAuthor } from "../workflows/versions/schemas";

/** Keys as workflows have them: stable names that steps and API calls use. */
export const CONTENT_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const KEY_MESSAGE = "Keys use lowercase letters, digits, '.', '-' and '_' (at most 64).";
export const ContentKey = z.string().regex(CONTENT_KEY, KEY_MESSAGE);

const Liquid = z.string().max(100_000);
const readOnly = { readOnly: true } as const;

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

export const Layout = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    html: z.string(),
    text: z.string().nullable(),
    isDefault: z.boolean(),
    version: z
      .number()
      .int()
      .openapi({ ...readOnly, description: "Its latest version's number; the `ETag` is this number, quoted." }),
    createdAt: z.iso.datetime().openapi(readOnly),
    updatedAt: z.iso.datetime().openapi(readOnly),
  })
  .openapi("Layout");
export type Layout = z.infer<typeof Layout>;

export const LayoutList = pageOf(Layout).openapi("LayoutList");

export const LayoutKeyParam = z.object({ key: z.string().openapi({ param: { name: "key", in: "path" }, example: "default" }) });

export const layoutCursor = cursorCodec(z.tuple([ContentKey]));
export const LayoutPageQuery = pageQuery(100, layoutCursor);

export const LayoutDefinition = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    html: z.string(),
    text: z.string().nullable(),
    isDefault: z.boolean(),
  })
  .openapi("LayoutDefinition");

export const LayoutVersion = z
  .object({
    version: z.number().int().min(1),
    action: z.enum(["created", "updated", "deleted", "reverted"]),
    author: VersionAuthor,
    summary: z.string(),
    createdAt: z.iso.datetime(),
    definition: LayoutDefinition,
  })
  .openapi("LayoutVersion");
export type LayoutVersion = z.infer<typeof LayoutVersion>;
export const LayoutVersionList = pageOf(LayoutVersion).openapi("LayoutVersionList");

export const ContentDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902 JSON Patch turning version `from`'s definition into `to`'s." }),
    fields: z.array(z.string()).openapi({ description: "The fields that changed." }),
  })
  .openapi("ContentDiff");
