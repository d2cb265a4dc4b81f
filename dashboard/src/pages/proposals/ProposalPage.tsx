import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { Textarea } from "../../ui/Textarea";
import { When } from "../workflows/history/VersionMeta";
import { ProposalDiff } from "./ProposalDiff";
import { ProposalPreview } from "./ProposalPreview";
import { applyProposalMutation, type Proposal, proposalQuery, rejectProposalMutation, resourcePath } from "./queries";
import { StatusBadge } from "./StatusBadge";
import "./proposals.css";

const isStale = (error: unknown) => error instanceof ApiError && error.problem.code === "proposal_stale";

/** Apply or reject, for a pending proposal; who decided, for one already decided. */
function Decision({ proposal }: { proposal: Proposal }) {
  const api = useApi();
  const apply = useMutation(applyProposalMutation(api));
  const reject = useMutation(rejectProposalMutation(api));
  const [reason, setReason] = useState("");
  if (proposal.status !== "pending") {
    return (
      <Card className="proposal-decision" aria-label="Decision">
        <p role="status" data-testid="decision">
          {proposal.status === "applied" ? `Applied as version ${proposal.appliedVersion}` : "Rejected"} by {proposal.decidedBy?.name}
          {proposal.decidedAt ? (
            <>
              {" "}
              <When iso={proposal.decidedAt} />
            </>
          ) : null}
          .
        </p>
        {proposal.rejectReason ? <p className="muted">{proposal.rejectReason}</p> : null}
        {proposal.status === "applied" ? <Link to={resourcePath(proposal)}>Open the {proposal.resource}</Link> : null}
      </Card>
    );
  }
  const busy = apply.isPending || reject.isPending;
  return (
    <Card className="proposal-decision" aria-label="Decision">
      {isStale(apply.error) ? (
        <div className="problem" role="alert" data-testid="stale">
          <strong>The {proposal.resource} changed since this was proposed</strong>
          <p>Nothing was applied. Ask for a new proposal made from the current version, and reject this one.</p>
        </div>
      ) : (apply.error ?? reject.error) ? (
        <ProblemView error={apply.error ?? reject.error} />
      ) : null}
      {proposal.validation.ok ? null : <p className="muted">It cannot be applied until the problems above are fixed in a new proposal.</p>}
      <div className="row-actions">
        <Button type="button" variant="primary" disabled={busy || !proposal.validation.ok} onClick={() => apply.mutate(proposal)}>
          Apply
        </Button>
        <Button type="button" variant="danger" disabled={busy} onClick={() => reject.mutate({ proposal, reason })}>
          Reject
        </Button>
      </div>
      <Field label="Reason (optional, kept with a rejection)">
        <Textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
    </Card>
  );
}

/** One proposal: what it changes beside the current version, how it renders, its problems, and the decision. */
export function ProposalPage() {
  const { id = "" } = useParams();
  const api = useApi();
  const query = useQuery(proposalQuery(api, id));
  if (query.error) return <ProblemView error={query.error} />;
  if (!query.data) return <Loading what="the proposal" />;
  const p = query.data;
  return (
    <>
      <PageHeader
        title={
          <>
            {p.resource} <code>{p.key}</code> <StatusBadge status={p.status} />
          </>
        }
      >
        <Button asChild>
          <Link to="/proposals">All proposals</Link>
        </Button>
      </PageHeader>
      <p className="proposal-meta">
        Proposed by <strong>{p.proposedBy.name}</strong> <When iso={p.createdAt} />
        {p.baseVersion === null ? " · creates it" : ` · from version ${p.baseVersion}`}
      </p>
      {p.note ? <blockquote className="proposal-note">{p.note}</blockquote> : null}
      {p.validation.ok ? null : (
        <div className="problem" role="alert" data-testid="validation-errors">
          <strong>This content would not save</strong>
          <ul>
            {p.validation.errors.map((e) => (
              <li key={`${e.path}:${e.message}`}>
                <code>{e.path}</code>: {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <Decision proposal={p} />
      <ProposalDiff proposal={p} />
      <ProposalPreview preview={p.preview} />
    </>
  );
}
