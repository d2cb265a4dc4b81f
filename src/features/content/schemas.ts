import { z } from "@hono/zod-openapi";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { PatchOperation, VersionAuthor } from "../workflows/versions/schemas";

/** Keys as workflows have them: stable names that steps and API calls use. */
export const CONTENT_KEY = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const KEY_MESSAGE = "Keys use lowercase letters, digits, '.', '-' and '_' (at most 64).";
export const ContentKey = z.string().regex(CONTENT_KEY, KEY_MESSAGE);

const readOnly = { readOnly: true } as const;

export const ContentDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902 JSON Patch turning version `from`'s definition into `to`'s." }),
    fields: z.array(z.string()).openapi({ description: "The fields that changed." }),
  })
  .openapi("ContentDiff");

/**
 * The schemas every kind of keyed, versioned content has, from its input and its own fields:
 * the item (the definition with its version and times), its page, its key parameter and list
 * query, and its versions. Named `<Title>`, `<Title>List`, `<Title>Version`, `<Title>VersionList`.
 */
export function keyedContentSchemas<I extends z.ZodType, S extends z.ZodRawShape>(title: string, Input: I, fields: S, exampleKey: string) {
  // Stored as saved: every kind has a key, a name and a description, then its own fields.
  const definition = z.object({ key: z.string(), name: z.string(), description: z.string().nullable(), ...fields });
  const Item = z
    .object({
      ...definition.shape,
      version: z
        .number()
        .int()
        .openapi({ ...readOnly, description: "Its latest version's number; the `ETag` is this number, quoted." }),
      createdAt: z.iso.datetime().openapi(readOnly),
      updatedAt: z.iso.datetime().openapi(readOnly),
    })
    .openapi(title);
  const Version = z
    .object({
      version: z.number().int().min(1),
      action: z.enum(["created", "updated", "deleted", "reverted"]),
      author: VersionAuthor,
      summary: z.string(),
      createdAt: z.iso.datetime(),
      definition: definition.openapi(`${title}Definition`),
    })
    .openapi(`${title}Version`);
  const cursor = cursorCodec(z.tuple([ContentKey]));
  return {
    title,
    Input,
    Item,
    List: pageOf(Item).openapi(`${title}List`),
    KeyParam: z.object({ key: z.string().openapi({ param: { name: "key", in: "path" }, example: exampleKey }) }),
    cursor,
    PageQuery: pageQuery(100, cursor),
    Version,
    VersionList: pageOf(Version).openapi(`${title}VersionList`),
  };
}
