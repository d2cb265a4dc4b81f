import { z } from "@hono/zod-openapi";
import { API_KEY_KINDS, MCP_SCOPES } from "../../contract/api-keys";
import { cursorCodec, idCursor, rawKey } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

const SLUG = /^[a-z][a-z0-9-]{0,31}$/;
const MAX_OVERLAP_HOURS = 24 * 30;
export const DEFAULT_OVERLAP_HOURS = 24;

export const Environment = z
  .object({
    id: z.string().openapi({ example: "env_01936b2f8c7a7cc1a3e2f4b5c6d7e8f9" }),
    name: z.string().openapi({ example: "Staging" }),
    slug: z.string().openapi({ example: "staging" }),
    createdAt: z.iso.datetime().openapi({ example: "2026-11-23T21:00:00.000Z" }),
  })
  .openapi("Environment");
export type Environment = z.infer<typeof Environment>;

export const EnvironmentInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    slug: z.string().regex(SLUG, "A slug is a lower-case letter, then lower-case letters, digits and '-' (at most 32).").openapi({
      description:
        "Unique; appears in the environment's keys (`ck_<slug without '-'>_...`; `ck_dev_` and `ck_prod_` for development and production).",
    }),
  })
  .strict()
  .openapi("EnvironmentInput", { example: { name: "Staging", slug: "staging" } });
export type EnvironmentInput = z.infer<typeof EnvironmentInput>;

export const EnvironmentUpdate = EnvironmentInput.pick({ name: true })
  .strict()
  .openapi("EnvironmentUpdate", { description: "The slug never changes: keys carry it.", example: { name: "Staging (EU)" } });
export type EnvironmentUpdate = z.infer<typeof EnvironmentUpdate>;

export const EnvironmentList = pageOf(Environment).openapi("EnvironmentList");
export type EnvironmentList = z.infer<typeof EnvironmentList>;
const Slug = z.string().regex(SLUG);
/** Environments by slug; before 0.13 the cursor was the slug itself. */
export const environmentCursor = cursorCodec(z.tuple([Slug]), { legacy: rawKey(Slug) });

export const EnvironmentPageQuery = pageQuery(100, environmentCursor);

export const EnvironmentSlugParam = z.object({
  slug: z.string().openapi({ param: { name: "slug", in: "path" }, example: "staging" }),
});

export const API_KEY_STATUSES = ["active", "expiring", "expired", "revoked"] as const;

const Kind = z.enum(API_KEY_KINDS).openapi({
  description: "`api`: the whole API of its environment. `mcp`: only the MCP server at `/mcp`, for the tools of its `scopes`.",
  example: "api",
});
const Scopes = z.array(z.enum(MCP_SCOPES)).openapi({
  description:
    "An MCP key's scopes: `read` (workflows, subscribers, messages, triggers, docs), `trigger` (trigger and cancel), `propose` (changes as proposals a person applies), `manage` (apply proposals, promote). Empty for an `api` key.",
  example: ["read", "propose"],
});

export const ApiKey = z
  .object({
    id: z.string().openapi({ example: "key_01936b2f8c7a7cc1a3e2f4b5c6d7e8f9" }),
    environment: z.string().openapi({ description: "The environment's slug.", example: "staging" }),
    name: z.string().openapi({ example: "ci" }),
    prefix: z.string().openapi({
      description:
        "`ck_<tag>_` and the key's first six random characters, to recognise it. Keys made before 0.8 show their first 12 characters.",
      example: "ck_staging_AbC1x9",
    }),
    status: z.enum(API_KEY_STATUSES).openapi({
      description: "`expiring`: rotated, works until `expiresAt`. `expired` and `revoked` keys are refused.",
      example: "active",
    }),
    createdAt: z.iso.datetime().openapi({ example: "2026-11-23T21:00:00.000Z" }),
    lastUsedAt: z.iso.datetime().nullable().openapi({
      description: "Recorded at most once a minute per Worker isolate, so it may lag by a minute.",
      example: "2026-11-23T21:05:00.000Z",
    }),
    expiresAt: z.iso.datetime().nullable().openapi({ example: null }),
    revokedAt: z.iso.datetime().nullable().openapi({ example: null }),
    kind: Kind,
    scopes: Scopes,
  })
  .openapi("ApiKey");
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyCreated = ApiKey.extend({
  key: z
    .string()
    .openapi({ description: "The secret itself: shown in this answer only.", example: "ck_staging_4kQ9xW2mTz8LpR5vN1bY7cH3jF6gD0sA" }),
}).openapi("ApiKeyCreated");
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyInput = z
  .object({
    name: z.string().trim().min(1).max(100).default("default"),
    expiresAt: z.iso
      .datetime()
      .refine((at) => Date.parse(at) > Date.now(), "A key cannot be created already expired: give a time in the future.")
      .optional()
      .openapi({ description: "In the future; leave out for a key with no end." }),
    kind: Kind.default("api"),
    scopes: Scopes.min(1)
      .max(MCP_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope at most once.")
      .optional()
      .openapi({ description: "Required for an `mcp` key (one or more scopes); not allowed for an `api` key." }),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.kind === "mcp" && !input.scopes) ctx.addIssue({ code: "custom", path: ["scopes"], message: "An MCP key needs its scopes." });
    if (input.kind === "api" && input.scopes) {
      ctx.addIssue({ code: "custom", path: ["scopes"], message: "An API key has every scope of the API: scopes are for `mcp` keys." });
    }
  })
  .openapi("ApiKeyInput", { example: { name: "ci" } });
export type ApiKeyInput = z.infer<typeof ApiKeyInput>;

export const ApiKeyList = pageOf(ApiKey).openapi("ApiKeyList");
export type ApiKeyList = z.infer<typeof ApiKeyList>;
export const ApiKeyPageQuery = pageQuery(100, idCursor).extend({
  includeRevoked: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .openapi({ description: "Also list revoked and expired keys." }),
});

export const ApiKeyIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "key_01936b2f8c7a7cc1a3e2f4b5c6d7e8f9" }),
});

export const RotateInput = z
  .object({
    overlapHours: z
      .number()
      .min(0)
      .max(MAX_OVERLAP_HOURS)
      .default(DEFAULT_OVERLAP_HOURS)
      .openapi({
        description: `How long the old key keeps working (default ${DEFAULT_OVERLAP_HOURS}; 0 ends it at once).`,
      }),
    name: z.string().trim().min(1).max(100).optional().openapi({ description: "The new key's name; the old one's by default." }),
  })
  .strict()
  .openapi("RotateInput", { example: { overlapHours: 24 } });
export type RotateInput = z.infer<typeof RotateInput>;

export const Rotation = z
  .object({ key: ApiKeyCreated, previous: ApiKey.openapi({ description: "The old key, now `expiring` (or `expired` with no overlap)." }) })
  .openapi("Rotation");
export type Rotation = z.infer<typeof Rotation>;
