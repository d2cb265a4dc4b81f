import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useApi } from "../../api/context";
import { useSession } from "../../session/session";
import { DataList } from "../../ui/DataList";
import { download } from "../../ui/download";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { SelectFilter } from "../../ui/SelectFilter";
import { ago } from "../workflows/when";
import { EntryChanges } from "./EntryChanges";
import { ACTION_LABELS, type AuditEntry, RESOURCE_LABELS, useAuditFilters } from "./filters";
import { acrossEnvironments, auditLogQuery, exportNdjson } from "./queries";
import "./audit.css";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Field } from "../../ui/Field";

/** The filters chosen from a list of the API's values. */
const CHOICES = [
  { key: "resource", label: "Resource", all: "All resources", labels: RESOURCE_LABELS },
  { key: "action", label: "Action", all: "All actions", labels: ACTION_LABELS },
] as const;

const actorOf = (entry: AuditEntry) =>
  entry.actor.type === "admin" ? "admin" : `${entry.actor.name}${entry.actor.type === "dashboard" ? " (dashboard)" : ""}`;

/**
 * Every change to configuration in the environment (or, for the admin credential, in every
 * environment): filtered by resource, action, actor and time, each entry's before and after
 * side by side, and the whole selection as NDJSON.
 */
export function AuditPage() {
  const api = useApi();
  const { who, environment } = useSession();
  const admin = who?.kind === "admin";
  const { filters, update } = useAuditFilters();
  const [actor, setActor] = useState(filters.actor ?? "");
  const [open, setOpen] = useState<string[]>([]);
  const all = acrossEnvironments(filters, admin);
  const list = useInfiniteQuery(auditLogQuery(api, filters, admin));
  const exported = useMutation({
    mutationFn: () => exportNdjson(api, filters, admin),
    onSuccess: (blob) =>
      download(blob, `audit-log-${all ? (filters.environment ?? "all") : environment}-${new Date().toISOString().slice(0, 10)}.ndjson`),
  });
  const toggle = (id: string) => setOpen((ids) => (ids.includes(id) ? ids.filter((i) => i !== id) : [...ids, id]));
  const columns = all ? 8 : 7;

  return (
    <>
      <PageHeader title="Audit log">
        <Button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          {exported.isPending ? "Exporting…" : "Download NDJSON"}
        </Button>
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
          <SelectFilter
            id="audit-scope"
            label="Environments"
            value={all ? "all" : undefined}
            options={["all"]}
            all={`This environment (${environment})`}
            labels={{ all: "All environments" }}
            onChange={(scope) => update({ scope, environment: undefined })}
          />
        ) : null}
        {all ? (
          <SelectFilter
            id="audit-environment"
            label="Environment"
            value={filters.environment}
            options={who?.environments.map((e) => e.slug) ?? []}
            all="Any"
            onChange={(environment) => update({ environment })}
          />
        ) : null}
        {CHOICES.map(({ key, label, all, labels }) => (
          <SelectFilter
            key={key}
            label={label}
            value={filters[key]}
            options={Object.keys(labels)}
            all={all}
            labels={labels}
            onChange={(value) => update({ [key]: value })}
          />
        ))}
        <Field label="Actor">
          <Input
            type="search"
            value={actor}
            placeholder="Anyone (key id or name, admin)"
            onChange={(e) => setActor(e.target.value)}
            onBlur={() => update({ actor: actor.trim() || undefined })}
          />
        </Field>
        {(["after", "before"] as const).map((bound) => (
          <Field label={bound === "after" ? "From" : "Until"} key={bound}>
            <Input type="datetime-local" value={filters[bound] ?? ""} onChange={(e) => update({ [bound]: e.target.value || undefined })} />
          </Field>
        ))}
      </form>
      {exported.error ? <ProblemView error={exported.error} /> : null}
      <DataList
        list={list}
        what="the audit log"
        empty="No change matches."
        className="audit-log"
        columns={["When", ...(all ? ["Environment"] : []), "Actor", "Action", "Resource", "Id", "What changed", { label: "Details" }]}
        row={(entry) => (
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
              <td className="audit-summary" data-summary>
                {entry.summary}
              </td>
              <td>
                <Button type="button" aria-expanded={open.includes(entry.id)} onClick={() => toggle(entry.id)}>
                  {open.includes(entry.id) ? "Hide" : "Before / after"}
                </Button>
              </td>
            </tr>
            {open.includes(entry.id) ? (
              <tr className="entry-details">
                <td colSpan={columns}>
                  <EntryChanges entry={entry} />
                  {entry.requestId ? (
                    <p className="muted small">
                      Request id: {entry.requestId}
                      {entry.clientRequestId ? ` (the caller's X-Request-Id: ${entry.clientRequestId})` : null}
                    </p>
                  ) : null}
                </td>
              </tr>
            ) : null}
          </Fragment>
        )}
      />
    </>
  );
}
