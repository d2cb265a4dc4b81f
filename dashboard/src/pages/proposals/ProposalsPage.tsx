import { useInfiniteQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import { useApi } from "../../api/context";
import { Badge } from "../../ui/Badge";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { SelectFilter } from "../../ui/SelectFilter";
import { When } from "../workflows/history/VersionMeta";
import { type ProposalStatus, proposalsQuery, STATUSES } from "./queries";
import { StatusBadge } from "./StatusBadge";
import "./proposals.css";

const isStatus = (value: string | null): value is ProposalStatus => STATUSES.includes(value as ProposalStatus);

/** Changes waiting for a person (from an agent, CI or a colleague), and those already decided. */
export function ProposalsPage() {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const raw = params.get("status");
  // Pending by default: what needs a decision; `all` shows every state.
  const status = raw === "all" ? undefined : isStatus(raw) ? raw : "pending";
  const list = useInfiniteQuery(proposalsQuery(api, status));

  return (
    <>
      <PageHeader title="Proposals" />
      <p className="muted">
        Changes to workflows, layouts, partials and translations proposed through the API, an MCP client or CI. Nothing changes until
        someone applies one; each is checked and previewed as it would be saved.
      </p>
      <div className="filters">
        <SelectFilter
          label="Status"
          id="proposal-status"
          value={status}
          options={STATUSES}
          all="All statuses"
          onChange={(value) => setParams(value ? { status: value } : { status: "all" })}
        />
      </div>
      <DataList
        list={list}
        what="proposals"
        empty={status === "pending" ? "Nothing waits for a decision." : "No proposals."}
        className="proposals"
        columns={["Change", "Note", "Proposed by", "When", "Status"]}
        row={(p) => (
          <tr key={p.id} data-proposal={p.id}>
            <td>
              <Link to={`/proposals/${p.id}`}>
                {p.resource} <code>{p.key}</code>
              </Link>{" "}
              {p.validation.ok ? null : <Badge tone="bad">invalid</Badge>}
            </td>
            <td className="note">{p.note ?? <span className="muted">—</span>}</td>
            <td>{p.proposedBy.name}</td>
            <td>
              <When iso={p.createdAt} />
            </td>
            <td>
              <StatusBadge status={p.status} />
            </td>
          </tr>
        )}
      />
    </>
  );
}
