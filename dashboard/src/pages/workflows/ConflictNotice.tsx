// What a write refused for a stale If-Match shows instead of a bare 412: who changed the workflow,
// and the two ways on (take their version, or see what they changed first).
import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { latestVersionQuery } from "./history/queries";
import { Author, When } from "./history/VersionMeta";
import { Button } from "../../ui/Button";

/** A save or delete (412 `workflow_changed`) or a revert (409 `workflow_version_conflict`) of a workflow changed since it was read. */
export const isConflict = (error: unknown): error is ApiError =>
  error instanceof ApiError && (error.problem.code === "workflow_changed" || error.problem.code === "workflow_version_conflict");

export function ConflictNotice({
  workflowKey,
  loaded,
  onReload,
  onViewDiff,
}: {
  workflowKey: string;
  /** The version the editor read, which the refused write named in If-Match. */
  loaded: number;
  onReload: () => void;
  onViewDiff: (from: number, to: number) => void;
}) {
  const api = useApi();
  const latest = useQuery(latestVersionQuery(api, workflowKey));
  const theirs = latest.data;
  return (
    <div className="problem conflict" role="alert" data-testid="conflict">
      <strong>Someone else changed this workflow</strong>
      <p>
        Nothing was saved: you were editing version {loaded}
        {theirs ? (
          <>
            , and it is now at version {theirs.version} (<Author version={theirs} />, <When iso={theirs.createdAt} />: {theirs.summary})
          </>
        ) : null}
        . Your changes are still here; reload their version to work on it, or see what they changed first.
      </p>
      <div className="actions">
        <Button type="button" variant="primary" onClick={onReload}>
          Reload their version
        </Button>
        <Button type="button" disabled={!theirs} onClick={() => theirs && onViewDiff(loaded, theirs.version)}>
          View the difference
        </Button>
      </div>
    </div>
  );
}
