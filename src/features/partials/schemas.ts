import { z } from "@hono/zod-openapi";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { ContentKey } from "../layouts/schemas";
import { VersionAuthor } from "../workflows/versions/schemas";

const readOnly = { readOnly: true } as const;
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

export const Partial = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    content: z.string(),
    type: z.enum(PARTIAL_TYPES),
    version: z
      .number()
      .int()
      .openapi({ ...readOnly, description: "Its latest version's number; the `ETag` is this number, quoted." }),
    createdAt: z.iso.datetime().openapi(readOnly),
    updatedAt: z.iso.datetime().openapi(readOnly),
  })
  .openapi("Partial");
export type Partial = z.infer<typeof Partial>;

export const PartialList = pageOf(Partial).openapi("PartialList");

export const PartialKeyParam = z.object({ key: z.string().openapi({ param: { name: "key", in: "path" }, example: "footer" }) });

export const partialCursor = cursorCodec(z.tuple([ContentKey]));
export const PartialPageQuery = pageQuery(100, partialCursor);

export const PartialDefinition = z
  .object({ key: z.string(), name: z.string(), description: z.string().nullable(), content: z.string(), type: z.enum(PARTIAL_TYPES) })
  .openapi("PartialDefinition");

export const PartialVersion = z
  .object({
    version: z.number().int().min(1),
    action: z.enum(["created", "updated", "deleted", "reverted"]),
    author: VersionAuthor,
    summary: z.string(),
    createdAt: z.iso.datetime(),
    definition: PartialDefinition,
  })
  .openapi("PartialVersion");
export type PartialVersion = z.infer<typeof PartialVersion>;
export const PartialVersionList = pageOf(PartialVersion).openapi("PartialVersionList");
