import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { PendingCount } from "../proposals/PendingCount";
import { useDebounced } from "../../ui/use-debounced";
import { workflowsQuery } from "./queries";
import { ago } from "./when";
import "./workflows.css";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";

type ActiveFilter = "" | "true" | "false";

/** Every workflow of the environment: searchable by key or name, filtered by active, with when each last ran. */
export function WorkflowsPage() {
  const [search, setSearch] = useState("");
  const [active, setActive] = useState<ActiveFilter>("");
  const q = useDebounced(search.trim(), 250);
  const filters = { q: q || undefined, active: active || undefined };
  const api = useApi();
  const list = useInfiniteQuery(workflowsQuery(api, filters));
  const filtered = Boolean(filters.q || filters.active);

  return (
    <>
      <PageHeader title="Workflows">
        <nav aria-label="Content" className="content-links">
          <Button asChild variant="ghost">
            <Link to="/layouts">Layouts</Link>
          </Button>
          <Button asChild variant="ghost">
            <Link to="/partials">Partials</Link>
          </Button>
          <Button asChild variant="ghost">
            <Link to="/brand">Brand</Link>
          </Button>
          <Button asChild variant="ghost">
            <Link to="/translations">Translations</Link>
          </Button>
          <Button asChild variant="ghost">
            <Link to="/proposals">
              Proposals
              <PendingCount />
            </Link>
          </Button>
        </nav>
        <Button asChild variant="primary">
          <Link to="/workflows/new">New workflow</Link>
        </Button>
      </PageHeader>
      <div className="filters">
        <Field label="Search">
          <Input type="search" value={search} placeholder="Key or name" onChange={(e) => setSearch(e.target.value)} />
        </Field>
        <Field label="Status">
          <Select value={active} onChange={(e) => setActive(e.target.value as ActiveFilter)}>
            <option value="">All</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </Select>
        </Field>
      </div>
      <DataList
        list={list}
        what="workflows"
        empty={filtered ? "No workflow matches." : "No workflows yet: create one with New workflow."}
        className="workflow-list"
        columns={["Name", "Key", "Steps", "Status", "Last triggered"]}
        row={(wf) => (
          <tr key={wf.key} data-workflow={wf.key}>
            <td>
              <Link to={`/workflows/${encodeURIComponent(wf.key)}`}>{wf.name}</Link>
            </td>
            <td>
              <code>{wf.key}</code>
            </td>
            <td className="step-types">{wf.steps.map((s) => s.type).join(" → ") || "—"}</td>
            <td>{wf.active ? <Badge tone="ok">active</Badge> : <Badge>inactive</Badge>}</td>
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
        )}
      />
    </>
  );
}
