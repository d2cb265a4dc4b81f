import { z } from "@hono/zod-openapi";
import { PROPOSAL_RESOURCES, PROPOSAL_STATUSES } from "../../contract/proposals";
import { FieldError } from "../../lib/errors";
import { idCursor } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { PatchOperation, VersionAuthor } from "../workflows/versions/schemas";
import { PreviewResponse } from "../workflows/preview-schemas";

const Pointer = z.string().max(1024).openapi({ description: "An RFC 6901 JSON Pointer (`/steps/0/template/subject`)." });

/** Any RFC 6902 operation: what a proposal's `patch` may hold. */
export const JsonPatchOperation = z
  .discriminatedUnion("op", [
    z.object({ op: z.literal("add"), path: Pointer, value: z.unknown() }).strict(),
    z.object({ op: z.literal("remove"), path: Pointer }).strict(),
    z.object({ op: z.literal("replace"), path: Pointer, value: z.unknown() }).strict(),
    z.object({ op: z.literal("move"), from: Pointer, path: Pointer }).strict(),
    z.object({ op: z.literal("copy"), from: Pointer, path: Pointer }).strict(),
    z.object({ op: z.literal("test"), path: Pointer, value: z.unknown() }).strict(),
  ])
  .openapi("JsonPatchOperation");

/** The preview's stand-in for a layout's `{{ content }}`. */
export const SAMPLE_CONTENT = "<p>Your message goes here.</p>";

export const ProposalPreview = z
  .discriminatedUnion("resource", [
    z.object({ resource: z.literal("workflow"), steps: PreviewResponse.shape.steps }),
    z.object({ resource: z.literal("layout"), html: z.string().nullable(), text: z.string().nullable(), error: z.string().optional() }),
    z.object({ resource: z.literal("partial"), content: z.string().nullable(), error: z.string().optional() }),
    z.object({
      resource: z.literal("translations"),
      texts: z
        .record(z.string(), z.unknown())
        .openapi({ description: "The locale's keys, flat (`welcome.subject`), as a `t` filter finds them." }),
    }),
  ])
  .openapi("ProposalPreview", {
    description:
      "The proposed content rendered: a workflow's steps as `POST /v1/workflows/preview` renders them (with the first of its `payloadSchema`'s `examples`, else an empty payload); a layout around a sample message; a partial on its own; a locale's texts.",
  });
export type ProposalPreview = z.infer<typeof ProposalPreview>;

export const ProposalInput = z
  .object({
    resource: z.enum(PROPOSAL_RESOURCES),
    key: z
      .string()
      .min(1)
      .max(64)
      .openapi({
        description:
          "The workflow's, layout's or partial's key, or the locale (`de-CH`). A key that does not exist yet proposes creating it.",
      }),
    content: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The whole resource as its `PUT` takes it (`{keys}` for translations). Give this or `patch`." }),
    patch: z
      .array(JsonPatchOperation)
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: "An RFC 6902 JSON Patch applied to the current content (as its `PUT` takes it). Give this or `content`." }),
    note: z.string().max(2000).optional().openapi({ description: "Why: shown to whoever reviews it." }),
  })
  .strict()
  .superRefine((input, ctx) => {
    if ((input.content === undefined) === (input.patch === undefined)) {
      ctx.addIssue({ code: "custom", path: ["content"], message: "Give either `content` or `patch`, not both and not neither." });
    }
  })
  .openapi("ProposalInput", {
    example: {
      resource: "workflow",
      key: "welcome",
      patch: [{ op: "replace", path: "/steps/0/template/subject", value: "Welcome aboard, {{ subscriber.firstName }}" }],
      note: "Friendlier subject line",
    },
  });
export type ProposalInput = z.infer<typeof ProposalInput>;

export const ProposalValidation = z
  .object({
    ok: z.boolean(),
    errors: z
      .array(FieldError)
      .openapi({ description: "Every problem a save of this content would answer with, by field path within the content." }),
  })
  .openapi("ProposalValidation");

export const Proposal = z
  .object({
    id: z.string().openapi({ example: "prp_0193c1f2a4b07c3d9e8f00112233aabb" }),
    resource: z.enum(PROPOSAL_RESOURCES),
    key: z.string(),
    status: z.enum(PROPOSAL_STATUSES),
    baseVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The version it was made from; null when the resource did not exist (applying creates it)." }),
    content: z.unknown().openapi({ description: "The whole content as proposed (after its patch, if it came as one)." }),
    patch: z.array(JsonPatchOperation).nullable().openapi({ description: "The patch as sent; null when it came as content." }),
    note: z.string().nullable(),
    diff: z.array(PatchOperation).openapi({ description: "RFC 6902 from the base version's content to the proposed content." }),
    validation: ProposalValidation,
    preview: ProposalPreview.nullable(),
    proposedBy: VersionAuthor,
    createdAt: z.iso.datetime(),
    decidedBy: VersionAuthor.nullable().openapi({ description: "Who applied or rejected it." }),
    decidedAt: z.iso.datetime().nullable(),
    appliedVersion: z.number().int().nullable().openapi({ description: "The version applying it made." }),
    rejectReason: z.string().nullable(),
  })
  .openapi("Proposal");
export type Proposal = z.infer<typeof Proposal>;

export const ProposalList = pageOf(Proposal)
  .extend({ pending: z.number().int().openapi({ description: "How many proposals of the environment wait for a decision." }) })
  .openapi("ProposalList");

export const ProposalPageQuery = pageQuery(100, idCursor).extend({
  status: z.enum(PROPOSAL_STATUSES).optional().openapi({ description: "Only proposals in this state." }),
});

export const ProposalIdParam = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "prp_0193c1f2a4b07c3d9e8f00112233aabb" }),
});

export const RejectInput = z
  .object({ reason: z.string().max(2000).optional() })
  .strict()
  .openapi("ProposalRejectInput", { example: { reason: "The subject must keep the order number." } });
