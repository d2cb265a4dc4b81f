import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../../api/context";
import type { ReactNode } from "react";
import { Loading } from "../../../ui/Loading";
import { ProblemView } from "../../../ui/ProblemView";
import { DefinitionTable } from "./DiffTable";
import { diffSections } from "./diff-rows";
import { versionQuery } from "./queries";
import { Author, When } from "./VersionMeta";
import { Card } from "../../../ui/Card";

/** One version's full content as it was saved, with the actions on it (compare, revert). */
export function VersionView({ workflowKey, n, children }: { workflowKey: string; n: number; children?: ReactNode }) {
  const api = useApi();
  const version = useQuery(versionQuery(api, workflowKey, n));
  if (version.error) return <ProblemView error={version.error} />;
  if (!version.data) return <Loading what={`version ${n}`} />;
  const v = version.data;
  return (
    <Card className="version-view" aria-labelledby="version-title" data-version={n}>
      <div className="compare-head">
        <h2 id="version-title">Version {n}</h2>
        <div className="actions">{children}</div>
      </div>
      <p className="muted">
        {v.summary} · <Author version={v} /> · <When iso={v.createdAt} />
      </p>
      <DefinitionTable sections={diffSections(v.definition, v.definition, [])} />
    </Card>
  );
}
