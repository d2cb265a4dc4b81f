import { z } from "@hono/zod-openapi";
import { cursorCodec } from "../../lib/cursor";
import { depthIssue, MAX_PAYLOAD_DEPTH } from "../../lib/json-limits";
import { byteLength } from "../../lib/crypto";
import { pageOf, pageQuery } from "../../lib/pagination";
import { BrandColors, BrandDefinition } from "../brand/schemas";
import { ChannelFlags } from "../subscribers/preferences-schemas";

/** A tenant's data, as JSON (UTF-8); it travels with every message of the tenant into templates. */
export const MAX_TENANT_DATA_BYTES = 16 * 1024;
export const MAX_TENANT_NAME = 200;
/** Workflows a tenant's defaults name. */
export const MAX_TENANT_WORKFLOW_DEFAULTS = 200;

/** Tenant ids follow the subscriberId rules: 1 to 256 characters, surrounding spaces trimmed. */
export const TenantId = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .openapi({ description: "Your id for the tenant (as a subscriberId).", example: "acme" });

export const TenantData = z
  .record(z.string(), z.unknown())
  .superRefine((data, ctx) => {
    const issue = depthIssue(data, MAX_PAYLOAD_DEPTH, []);
    if (issue) ctx.addIssue({ code: "custom", ...issue });
    else if (byteLength(JSON.stringify(data)) > MAX_TENANT_DATA_BYTES) {
      ctx.addIssue({ code: "custom", message: `Tenant data takes at most ${MAX_TENANT_DATA_BYTES / 1024} KiB as JSON.` });
    }
  })
  .openapi({ description: "Free-form data, read by templates as `tenant.data.*`." });

const shape = BrandDefinition.shape;
/** The environment's brand fields a tenant overrides; each one left out is the environment's. */
export const TenantBrand = z
  .object({
    name: shape.name.optional(),
    logoUrl: shape.logoUrl.optional(),
    colors: BrandColors.partial().strict().optional(),
    footer: shape.footer.unwrap().optional(),
    address: shape.address.unwrap().optional(),
    socialLinks: shape.socialLinks.unwrap().optional(),
  })
  .strict()
  .openapi("TenantBrand", {
    description: "Overrides the environment's brand field by field (and colour by colour) for this tenant's messages and pages.",
    example: { name: "Acme", logoUrl: "https://acme.example/logo.png", colors: { primary: "#b91c1c" } },
  });
export type TenantBrand = z.infer<typeof TenantBrand>;

const WorkflowKey = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "Use a workflow key.");

export const TenantPreferences = z
  .object({
    channels: ChannelFlags.partial().optional(),
    workflows: z
      .record(WorkflowKey, z.object({ enabled: z.boolean().optional(), channels: ChannelFlags.partial().optional() }).strict())
      .refine((w) => Object.keys(w).length <= MAX_TENANT_WORKFLOW_DEFAULTS, `At most ${MAX_TENANT_WORKFLOW_DEFAULTS} workflows.`)
      .optional(),
  })
  .strict()
  .openapi("TenantPreferences", {
    description:
      "The tenant's defaults: they apply to its subscribers' messages unless the subscriber chose otherwise (for this tenant or for themselves). `enabled: false` turns a workflow off; critical workflows ignore them.",
    example: { channels: { sms: false }, workflows: { "weekly-digest": { enabled: false } } },
  });
export type TenantPreferences = z.infer<typeof TenantPreferences>;

export const TenantInput = z
  .object({
    id: TenantId,
    name: z.string().trim().min(1).max(MAX_TENANT_NAME),
    data: TenantData.optional(),
    brand: TenantBrand.optional(),
    preferences: TenantPreferences.optional(),
  })
  .strict()
  .openapi("TenantInput", {
    example: {
      id: "acme",
      name: "Acme Inc.",
      data: { plan: "enterprise" },
      brand: { name: "Acme", colors: { primary: "#b91c1c" } },
      preferences: { workflows: { "weekly-digest": { enabled: false } } },
    },
  });
export type TenantInput = z.infer<typeof TenantInput>;

export const TenantUpdate = z
  .object({
    name: TenantInput.shape.name.optional(),
    data: TenantData.nullable().optional(),
    brand: TenantBrand.nullable().optional(),
    preferences: TenantPreferences.nullable().optional(),
  })
  .strict()
  .openapi("TenantUpdate", {
    example: { name: "Acme Corporation", brand: { name: "Acme", logoUrl: "https://acme.example/logo.png" } },
    description: "Fields left out keep their value; `null` clears `data`, `brand` or `preferences` (each is replaced whole).",
  });
export type TenantUpdate = z.infer<typeof TenantUpdate>;

export const Tenant = z
  .object({
    id: z.string(),
    name: z.string().nullable().openapi({ description: "Null for a tenant created by a trigger without a name." }),
    data: z.record(z.string(), z.unknown()),
    brand: TenantBrand,
    preferences: TenantPreferences,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Tenant");
export type Tenant = z.infer<typeof Tenant>;

export const TenantIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: "id", in: "path" }, example: "acme" }),
});

export const TenantList = pageOf(Tenant).openapi("TenantList");
export type TenantList = z.infer<typeof TenantList>;

/** Tenants by id. */
export const tenantCursor = cursorCodec(z.tuple([z.string()]));

export const TenantPageQuery = pageQuery(100, tenantCursor).extend({
  q: z.string().trim().min(1).max(256).optional().openapi({ description: "Part of the id or name; case-insensitive." }),
});
