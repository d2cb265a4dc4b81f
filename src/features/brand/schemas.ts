import { z } from "@hono/zod-openapi";
import { PatchOperation } from "../workflows/versions/schemas";
import { VersionAuthor } from "../workflows/versions/schemas";

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const color = (description: string) => z.string().regex(HEX_COLOR, "Use a colour as #rrggbb.").openapi({ description, example: "#1d4ed8" });
/** https only; `http:` passes here and is refused by the route unless ALLOW_PRIVATE_DESTINATIONS is on. */
const url = z.url({ protocol: /^https?$/ }).max(2048);

export const BrandColors = z
  .object({
    primary: color("Buttons, focus rings and accents."),
    background: color("The page or email background."),
    text: color("Body text."),
    link: color("Links."),
  })
  .strict()
  .openapi("BrandColors");

export const BrandDefinition = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .nullable()
      .openapi({ description: "Who the emails are from; null: the hosted pages name no sender." }),
    logoUrl: url.nullable().openapi({ description: "An `https:` image (at most 48 px high on the hosted pages)." }),
    colors: BrandColors,
    footer: z.string().max(2000).nullable().default(null).openapi({ description: "Plain text for an email footer." }),
    address: z
      .string()
      .max(500)
      .nullable()
      .default(null)
      .openapi({ description: "A postal address, as anti-spam laws ask of marketing email." }),
    socialLinks: z
      .array(z.object({ name: z.string().trim().min(1).max(50), url }).strict())
      .max(20)
      .default([])
      .openapi({ description: "Shown in order, e.g. `{% for l in brand.socialLinks %}`." }),
  })
  .strict()
  .openapi("BrandInput", {
    example: {
      name: "Acme",
      logoUrl: "https://acme.example/logo.png",
      colors: { primary: "#1d4ed8", background: "#ffffff", text: "#111827", link: "#1d4ed8" },
      footer: "You receive this because you have an Acme account.",
      address: "1 Main St, Springfield",
      socialLinks: [{ name: "Mastodon", url: "https://mastodon.social/@acme" }],
    },
  });
export type BrandInput = z.infer<typeof BrandDefinition>;

export const Brand = BrandDefinition.extend({
  footer: z.string().nullable(),
  address: z.string().nullable(),
  socialLinks: z.array(z.object({ name: z.string(), url: z.string() })),
  version: z.number().int().min(0).openapi({ description: "Counts saves; 0 until the brand is first saved (the defaults apply)." }),
  updatedAt: z.iso.datetime().nullable(),
}).openapi("Brand");
export type Brand = z.infer<typeof Brand>;

export const BrandVersion = z
  .object({
    version: z.number().int().min(1),
    action: z.enum(["created", "updated", "reverted", "promoted"]),
    author: VersionAuthor,
    createdAt: z.iso.datetime(),
    definition: BrandDefinition,
  })
  .openapi("BrandVersion");
export type BrandVersion = z.infer<typeof BrandVersion>;

export const BrandVersionList = z.object({ data: z.array(BrandVersion) }).openapi("BrandVersionList");

const versionNumber = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const BrandVersionParam = z.object({ n: versionNumber.openapi({ param: { name: "n", in: "path" }, example: 2 }) });

export const BrandDiffQuery = z.object({
  from: versionNumber.optional().openapi({ description: "By default the version before `to`." }),
  to: versionNumber.optional().openapi({ description: "By default the current version." }),
});

export const BrandDiff = z.object({ from: z.number().int(), to: z.number().int(), patch: z.array(PatchOperation) }).openapi("BrandDiff");

export const BrandRevertInput = z
  .object({ version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: "The version to restore." }) })
  .strict()
  .openapi("BrandRevertInput", { example: { version: 2 } });
