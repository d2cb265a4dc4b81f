import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useSession } from "../../session/session";
import { Loading } from "../../ui/Loading";
import { MoreButton } from "../../ui/MoreButton";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { ago } from "../workflows/when";
import { EntryChanges } from "./EntryChanges";
import { ACTION_LABELS, type AuditEntry, RESOURCE_LABELS, useAuditFilters } from "./filters";
import { acrossEnvironments, auditLogQuery, exportNdjson } from "./queries";
import "./audit.css";

const actorOf = (entry: AuditEntry) =>
  entry.actor.type === "admin" ? "admin" : `${entry.actor.name}${entry.actor.type === "dashboard" ? " (dashboard)" : ""}`;

/** Hands a Blob to the browser as a file. */
function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  // After the click has handed the file over: revoking at once can cancel it in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Every change to configuration in the environment (or, for the admin credential, in every
 * environment): filtered by resource, action, actor and time, each entry's before and after
 * side by side, and the whole selection as NDJSON.
 */
export function AuditPage() {
  const { who, environment } = useSession();
  const admin = who?.kind === "admin";
  const { filters, update } = useAuditFilters();
  const [actor, setActor] = useState(filters.actor ?? "");
  const [open, setOpen] = useState<string[]>([]);
  const all = acrossEnvironments(filters, admin);
  const list = useInfiniteQuery(auditLogQuery(filters, admin));
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  const exported = useMutation({
    mutationFn: () => exportNdjson(filters, admin),
    onSuccess: (blob) =>
      download(blob, `audit-log-${all ? (filters.environment ?? "all") : environment}-${new Date().toISOString().slice(0, 10)}.ndjson`),
  });
  const toggle = (id: string) => setOpen((ids) => (ids.includes(id) ? ids.filter((i) => i !== id) : [...ids, id]));
  const columns = all ? 7 : 6;

  return (
    <>
      <PageHeader title="Audit log">
        <button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          {exported.isPending ? "Exporting…" : "Download NDJSON"}
        </button>
      </PageHeader>
      <p className="muted">
        Every change to workflows, variables, integrations, environments, keys, webhook endpoints and settings: who made it, when, and the
        resource before and after (secrets masked). Entries are never changed or deleted, only expired after the retention period.
      </p>
      <form
        className="filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          update({ actor: actor.trim() || undefined });
        }}
      >
        {admin ? (
          <label className="field">
            Environments
            <select
              id="audit-scope"
              value={all ? "all" : ""}
              onChange={(e) => update({ scope: e.target.value || undefined, environment: undefined })}
            >
              <option value="">This environment ({environment})</option>
              <option value="all">All environments</option>
            </select>
          </label>
        ) : null}
        {all ? (
          <label className="field">
            Environment
            <select
              id="audit-environment"
              value={filters.environment ?? ""}
              onChange={(e) => update({ environment: e.target.value || undefined })}
            >
              <option value="">Any</option>
              {who?.environments.map((e) => (
                <option key={e.slug} value={e.slug}>
                  {e.slug}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label className="field">
          Resource
          <select value={filters.resource ?? ""} onChange={(e) => update({ resource: e.target.value || undefined })}>
            <option value="">All resources</option>
            {Object.entries(RESOURCE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Action
          <select value={filters.action ?? ""} onChange={(e) => update({ action: e.target.value || undefined })}>
            <option value="">All actions</option>
            {Object.entries(ACTION_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Actor
          <input
            type="search"
            value={actor}
            placeholder="Key id or name, or admin"
            onChange={(e) => setActor(e.target.value)}
            onBlur={() => update({ actor: actor.trim() || undefined })}
          />
        </label>
        <label className="field">
          From
          <input type="datetime-local" value={filters.after ?? ""} onChange={(e) => update({ after: e.target.value || undefined })} />
        </label>
        <label className="field">
          Until
          <input type="datetime-local" value={filters.before ?? ""} onChange={(e) => update({ before: e.target.value || undefined })} />
        </label>
      </form>
      {exported.error ? <ProblemView error={exported.error} /> : null}
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="the audit log" />
      ) : rows.length === 0 ? (
        <p className="empty muted">No change matches.</p>
      ) : (
        <div className="table-wrap">
          <table className="audit-log">
            <thead>
              <tr>
                <th scope="col">When</th>
                {all ? <th scope="col">Environment</th> : null}
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Id</th>
                <th scope="col" aria-label="Details" />
              </tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <Fragment key={entry.id}>
                  <tr data-entry={entry.id} data-resource={entry.resource} data-action={entry.action}>
                    <td>
                      <time dateTime={entry.at} title={new Date(entry.at).toLocaleString()}>
                        {ago(entry.at)}
                      </time>
                    </td>
                    {all ? <td>{entry.environment}</td> : null}
                    <td title={entry.actor.id ?? undefined}>{actorOf(entry)}</td>
                    <td>{ACTION_LABELS[entry.action]}</td>
                    <td>{RESOURCE_LABELS[entry.resource]}</td>
                    <td>
                      <code>{entry.resourceId}</code>
                    </td>
                    <td>
                      <button type="button" aria-expanded={open.includes(entry.id)} onClick={() => toggle(entry.id)}>
                        {open.includes(entry.id) ? "Hide" : "Before / after"}
                      </button>
                    </td>
                  </tr>
                  {open.includes(entry.id) ? (
                    <tr className="entry-details">
                      <td colSpan={columns}>
                        <EntryChanges entry={entry} />
                        {entry.requestId ? <p className="muted small">Request id: {entry.requestId}</p> : null}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
    </>
  );
}
