import { useQuery } from "@tanstack/react-query";
import { useLocation, useParams } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import type { Draft } from "./model";
import { workflowQuery } from "./queries";
import { WorkflowEditor } from "./WorkflowEditor";
import "./workflows.css";

/** /workflows/new and /workflows/:key: loads the workflow, then hands it to the editor. */
export function EditorPage() {
  const { key } = useParams();
  // Duplicate opens /workflows/new with the copy in the history entry's state.
  const copyOf = (useLocation().state as { copyOf?: Draft } | null)?.copyOf;
  const api = useApi();
  const workflow = useQuery({
    ...workflowQuery(api, key ?? ""),
    enabled: key !== undefined,
    // The editor holds its own draft: a refetch on focus must not look like someone else's change.
    refetchOnWindowFocus: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (key === undefined) return <WorkflowEditor key={copyOf ? `copy:${copyOf.key}` : "new"} saved={null} copyOf={copyOf} />;
  if (workflow.error)
    return (
      <>
        <PageHeader title={key} />
        <ProblemView error={workflow.error} />
      </>
    );
  if (!workflow.data) return <Loading what="the workflow" />;
  return <WorkflowEditor key={workflow.data.id} saved={workflow.data} />;
}
