import { z } from "@hono/zod-openapi";
import { UNSUBSCRIBE_SCOPES } from "../../../contract/unsubscribe";
import { Step } from "../../../engine/steps";
import { cursorCodec, rawKey } from "../../../lib/cursor";
import { pageOf, pageQuery } from "../../../lib/pagination";
import { WorkflowKeyParam } from "../schemas";

export const WorkflowDefinition = z
  .object({
    key: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean(),
    critical: z.boolean(),
    unsubscribe: z.enum(UNSUBSCRIBE_SCOPES),
    tags: z.array(z.string()),
    payloadSchema: z.record(z.string(), z.unknown()).nullable(),
    steps: z.array(Step),
  })
  .openapi("WorkflowDefinition", { description: "A workflow's content as it was saved (what `PUT /v1/workflows/{key}` takes)." });

export const VersionAuthor = z
  .object({
    type: z.enum(["key", "admin", "dashboard"]),
    id: z.string().nullable().openapi({ description: "The API key's id (`key_...`), never the key; null for the admin credential." }),
    name: z.string(),
  })
  .openapi("VersionAuthor");

export const WorkflowVersion = z
  .object({
    version: z.number().int().min(1),
    action: z.enum(["created", "updated", "deleted", "reverted"]),
    author: VersionAuthor,
    summary: z.string().openapi({ description: "One line saying what changed." }),
    createdAt: z.iso.datetime(),
    definition: WorkflowDefinition,
  })
  .openapi("WorkflowVersion");
export type WorkflowVersion = z.infer<typeof WorkflowVersion>;

export const WorkflowVersionList = pageOf(WorkflowVersion).openapi("WorkflowVersionList");

const versionNumber = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** Versions newest first, by number; before 0.13 the cursor was the number itself. */
export const versionCursor = cursorCodec(z.tuple([z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)]), {
  legacy: rawKey(
    z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/)
      .transform(Number),
  ),
});

export const VersionPageQuery = pageQuery(100, versionCursor);

export const VersionParam = WorkflowKeyParam.extend({
  n: versionNumber.openapi({ param: { name: "n", in: "path" }, example: 3 }),
});

export const DiffQuery = z.object({
  from: versionNumber.optional().openapi({ description: "The version the patch starts from; by default the one before `to`." }),
  to: versionNumber.optional().openapi({ description: "The version the patch leads to; by default the current one." }),
});

export const PatchOperation = z
  .object({ op: z.enum(["add", "remove", "replace"]), path: z.string(), value: z.unknown().optional() })
  .openapi("PatchOperation");

export const VersionChange = z
  .object({
    step: z.string().nullable().openapi({ description: "The step's id; null for a field of the workflow itself." }),
    change: z.enum(["added", "removed", "changed", "moved"]),
    fields: z.array(z.string()),
    path: z.string().optional().openapi({
      description:
        "Where the step sits in the later version (the earlier one for a removed step), at any depth: `steps.2.paths.0.steps.1`.",
    }),
    from: z.string().optional().openapi({ description: "For a moved step, where it sat in the earlier version." }),
  })
  .openapi("VersionChange");

export const WorkflowDiff = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    patch: z.array(PatchOperation).openapi({ description: "RFC 6902 JSON Patch turning version `from`'s definition into `to`'s." }),
    changes: z.array(VersionChange),
  })
  .openapi("WorkflowDiff");

export const RevertInput = z
  .object({ version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: "The version to restore." }) })
  .strict()
  .openapi("RevertInput", { example: { version: 2 } });
