import { z } from "@hono/zod-openapi";
import { ApiError, type ErrorCode } from "../../../lib/errors";

/** A workflow's ETag: its version, quoted (a strong validator: the version names one exact content). */
export const etagOf = (version: number) => `"${version}"`;

/**
 * The versions an `If-Match` header accepts; undefined when there is none or it is `*` (any).
 * A tag that is not one of ours matches nothing, so it can only fail the precondition.
 */
export function ifMatchVersions(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  return header.split(",").flatMap((tag) => {
    const match = /^\s*(?:W\/)?"([1-9][0-9]{0,15})"\s*$/.exec(tag);
    return match?.[1] ? [Number(match[1])] : [];
  });
}

/** The problem a stale `If-Match` answers: 412 for a save or a delete, 409 for a revert. */
export const staleWrite = (key: string, current: number, code: ErrorCode = "workflow_changed") =>
  new ApiError(
    code,
    `Workflow "${key}" was changed by someone else since you read it (it is now at version ${current}): read it again, redo your change and send its ETag in If-Match.`,
    undefined,
    { headers: { etag: etagOf(current) } },
  );

/**
 * Documents `If-Match` on the routes that honour it, for any versioned content (`what`: "the
 * workflow", "the layout", "the brand", ...); the handler reads the raw header.
 */
export const ifMatchHeader = (what: string) =>
  z.object({
    "if-match": z
      .string()
      .optional()
      .openapi({ description: `The \`ETag\` you read: the write happens only if ${what} is still at that version (else 412).` }),
  });

export const IfMatchHeader = ifMatchHeader("the workflow");

/** `Clarion-Import: true`: the write comes from a file import (`clarion workflows import`), and the audit log says so. */
export const ImportHeader = z.object({
  "clarion-import": z.enum(["true"]).optional().openapi({
    description: "`true` when the write applies a workflow file (`clarion workflows import`): its audit entry's action is `imported`.",
  }),
});
