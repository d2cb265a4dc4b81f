import { ProblemView } from "../../ui/ProblemView";
import { ConflictNotice, isConflict } from "./ConflictNotice";
import type { Workflow } from "./model";

/**
 * What the last writes said: a conflict (someone else saved since) as its own notice with a way
 * out, otherwise each failure as a problem; and "Saved." once the draft is the saved workflow.
 */
export function EditorNotices({
  saved,
  saveError,
  toggleError,
  deleteError,
  reloadError,
  savedNow,
  onReload,
  onViewDiff,
}: {
  saved: Workflow | null;
  saveError: unknown;
  toggleError: unknown;
  deleteError: unknown;
  reloadError: unknown;
  savedNow: boolean;
  onReload: () => void;
  onViewDiff: (from: number, to: number) => void;
}) {
  return (
    <>
      {saved && [saveError, toggleError, deleteError].some(isConflict) ? (
        <ConflictNotice workflowKey={saved.key} loaded={saved.version} onReload={onReload} onViewDiff={onViewDiff} />
      ) : (
        <>
          {saveError ? <ProblemView error={saveError} /> : null}
          {toggleError ? <ProblemView error={toggleError} /> : null}
          {deleteError ? <ProblemView error={deleteError} /> : null}
        </>
      )}
      {reloadError ? <ProblemView error={reloadError} /> : null}
      {savedNow ? (
        <p className="saved muted small" role="status">
          Saved.
        </p>
      ) : null}
    </>
  );
}
