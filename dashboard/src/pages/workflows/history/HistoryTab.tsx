import { useMutation } from "@tanstack/react-query";
import { useApi } from "../../../api/context";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { useConfirm } from "../../../ui/ConfirmDialog";
import { ProblemView } from "../../../ui/ProblemView";
import { ConflictNotice, isConflict } from "../ConflictNotice";
import type { Workflow } from "../model";
import { revertWorkflowMutation } from "../queries";
import { andThen } from "../../../api/mutations";
import { VersionDiff } from "./VersionDiff";
import { VersionList } from "./VersionList";
import { VersionView } from "./VersionView";
import { Button } from "../../../ui/Button";
import { Badge } from "../../../ui/Badge";

/** A version number from the address (`?view=3`, `?from=2&to=5`); anything else as none. */
const versionParam = (value: string | null) => (value && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : null);

/**
 * The editor's History tab: the versions, one of them or two side by side below (the choice is in
 * the address, so it can be shared), and revert. A revert names the version the editor loaded in
 * If-Match, so it never restores over a change this page has not seen.
 */
export function HistoryTab({
  workflow,
  unsaved,
  onReverted,
  onReload,
}: {
  workflow: Workflow;
  unsaved: boolean;
  onReverted: (restored: Workflow) => void;
  onReload: () => void;
}) {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const view = versionParam(params.get("view"));
  const from = versionParam(params.get("from"));
  const to = versionParam(params.get("to"));
  const [picked, setPicked] = useState<number[]>(() => (from && to ? [from, to] : []));
  const [dialog, ask] = useConfirm();
  const show = (next: Record<string, number>) =>
    setParams(Object.fromEntries([["tab", "history"], ...Object.entries(next).map(([k, v]) => [k, String(v)])]), { replace: true });
  const compare = (a: number, b: number) => {
    setPicked([a, b]);
    show({ from: a, to: b });
  };
  const revert = useMutation(
    andThen(revertWorkflowMutation(api, workflow), (restored) => {
      onReverted(restored);
      show({ view: restored.version });
    }),
  );
  const askRevert = async (n: number) => {
    const yes = await ask({
      title: `Restore version ${n}?`,
      body: (
        <>
          <p>
            Version {n}'s content becomes version {workflow.version + 1}; the versions in between stay in the history. Triggers already
            accepted keep the version they started with.
          </p>
          {unsaved ? <p className="problem">Your unsaved changes in the editor are discarded.</p> : null}
        </>
      ),
      confirm: `Restore version ${n}`,
      danger: true,
    });
    if (yes) revert.mutate(n);
  };

  return (
    <div className="history">
      {dialog}
      {isConflict(revert.error) ? (
        <ConflictNotice
          workflowKey={workflow.key}
          loaded={workflow.version}
          onReload={() => {
            revert.reset();
            onReload();
          }}
          onViewDiff={compare}
        />
      ) : revert.error ? (
        <ProblemView error={revert.error} />
      ) : null}
      {revert.isSuccess ? (
        <p className="saved muted small" role="status">
          Restored version {revert.variables} as version {revert.data.version}.
        </p>
      ) : null}
      <VersionList
        workflowKey={workflow.key}
        current={workflow.version}
        picked={picked}
        onPick={setPicked}
        onView={(n) => show({ view: n })}
        onCompare={compare}
        onRevert={(n) => void askRevert(n)}
        reverting={revert.isPending}
      />
      {from && to ? (
        <VersionDiff workflowKey={workflow.key} from={from} to={to} />
      ) : view ? (
        <VersionView workflowKey={workflow.key} n={view}>
          {view !== workflow.version ? (
            <>
              <Button type="button" onClick={() => compare(view, workflow.version)}>
                Compare with current
              </Button>
              <Button type="button" variant="danger" disabled={revert.isPending} onClick={() => void askRevert(view)}>
                Revert to this version…
              </Button>
            </>
          ) : (
            <Badge tone="ok">current</Badge>
          )}
        </VersionView>
      ) : (
        <p className="muted">View a version, or tick two and compare them.</p>
      )}
    </div>
  );
}
