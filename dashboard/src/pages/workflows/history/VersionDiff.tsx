import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../../api/context";
import { useState } from "react";
import { Loading } from "../../../ui/Loading";
import { ProblemView } from "../../../ui/ProblemView";
import { DiffTable } from "./DiffTable";
import { diffSections } from "./diff-rows";
import { diffQuery, versionQuery } from "./queries";
import { VersionHead } from "./VersionMeta";
import { Checkbox } from "../../../ui/Input";
import { Card } from "../../../ui/Card";

/** Versions `from` and `to` side by side, with what the API says changed between them. */
export function VersionDiff({ workflowKey, from, to }: { workflowKey: string; from: number; to: number }) {
  const [showUnchanged, setShowUnchanged] = useState(false);
  const api = useApi();
  const diff = useQuery(diffQuery(api, workflowKey, from, to));
  const before = useQuery(versionQuery(api, workflowKey, from));
  const after = useQuery(versionQuery(api, workflowKey, to));
  const error = diff.error ?? before.error ?? after.error;
  if (error) return <ProblemView error={error} />;
  if (!diff.data || !before.data || !after.data) return <Loading what={`versions ${from} and ${to}`} />;
  const sections = diffSections(before.data.definition, after.data.definition, diff.data.changes);
  const same = diff.data.patch.length === 0;
  return (
    <Card className="version-compare" aria-labelledby="compare-title" data-from={from} data-to={to}>
      <div className="compare-head">
        <h2 id="compare-title">
          Version {from} → version {to}
        </h2>
        <label className="inline">
          <Checkbox checked={showUnchanged} onChange={(e) => setShowUnchanged(e.target.checked)} /> Show unchanged fields
        </label>
      </div>
      <p className="muted" data-testid="diff-summary">
        {same
          ? "These versions have the same content."
          : `${diff.data.changes.length} change${diff.data.changes.length === 1 ? "" : "s"} (${diff.data.patch.length} JSON Patch operation${diff.data.patch.length === 1 ? "" : "s"}).`}
      </p>
      {same && !showUnchanged ? null : (
        <DiffTable
          sections={sections}
          showUnchanged={showUnchanged}
          heads={[<VersionHead key="from" n={from} version={before.data} />, <VersionHead key="to" n={to} version={after.data} />]}
        />
      )}
    </Card>
  );
}
