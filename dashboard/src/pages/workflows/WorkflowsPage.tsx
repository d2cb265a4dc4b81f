import { CURSOR_PAGES } from "../../api/cursor-pages";
import { MoreButton } from "../../ui/MoreButton";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { useDebounced } from "../../ui/use-debounced";
import { ago } from "./when";
import "./workflows.css";

type ActiveFilter = "" | "true" | "false";

/** Every workflow of the environment: searchable by key or name, filtered by active, with when each last ran. */
export function WorkflowsPage() {
  const [search, setSearch] = useState("");
  const [active, setActive] = useState<ActiveFilter>("");
  const q = useDebounced(search.trim(), 250);
  const filters = { q: q || undefined, active: active || undefined };
  const list = useInfiniteQuery({
    queryKey: ["workflows", filters],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/workflows", { params: { query: { ...filters, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Boolean(filters.q || filters.active);

  return (
    <>
      <PageHeader title="Workflows">
        <Link to="/workflows/new" className="button primary">
          New workflow
        </Link>
      </PageHeader>
      <div className="filters">
        <label className="field">
          Search
          <input type="search" value={search} placeholder="Key or name" onChange={(e) => setSearch(e.target.value)} />
        </label>
        <label className="field">
          Status
          <select value={active} onChange={(e) => setActive(e.target.value as ActiveFilter)}>
            <option value="">All</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </label>
      </div>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="workflows" />
      ) : rows.length === 0 ? (
        <p className="empty muted">{filtered ? "No workflow matches." : "No workflows yet: create one with New workflow."}</p>
      ) : (
        <div className="table-wrap">
          <table className="workflow-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Steps</th>
                <th>Status</th>
                <th>Last triggered</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((wf) => (
                <tr key={wf.key} data-workflow={wf.key}>
                  <td>
                    <Link to={`/workflows/${encodeURIComponent(wf.key)}`}>{wf.name}</Link>
                  </td>
                  <td>
                    <code>{wf.key}</code>
                  </td>
                  <td className="step-types">{wf.steps.map((s) => s.type).join(" → ") || "—"}</td>
                  <td>{wf.active ? <span className="badge ok">active</span> : <span className="badge">inactive</span>}</td>
                  <td data-testid="last-triggered">
                    {wf.lastTriggeredAt ? (
                      <time dateTime={wf.lastTriggeredAt} title={new Date(wf.lastTriggeredAt).toLocaleString()}>
                        {ago(wf.lastTriggeredAt)}
                      </time>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
    </>
  );
}
