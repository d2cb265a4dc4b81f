import { ApiError, type ErrorCode } from "../../lib/errors";
import { etagOf } from "../workflows/versions/if-match";

/**
 * The problem a failed `If-Match` answers for any versioned content (412 `<name>_changed` for a
 * save or a delete, 409 `<name>_version_conflict` for a revert), with the current ETag so the
 * caller can read again. `what` names it as a sentence starts: `Layout "default"`, `The brand`.
 */
export const staleContent = (what: string, current: number, code: ErrorCode) =>
  new ApiError(
    code,
    `${what} was changed by someone else since you read it (it is now at version ${current}): read it again, redo your change and send its ETag in If-Match.`,
    undefined,
    { headers: { etag: etagOf(current) } },
  );
