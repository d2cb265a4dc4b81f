import { type QueryKey, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiError } from "../../api/problem";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList, fixedList } from "../../ui/DataList";
import { DiffRow, FieldDiffTable } from "../../ui/FieldDiff";
import { pairRows, rowsOf } from "../../ui/field-diff";
import { ProblemView } from "../../ui/ProblemView";
import { ago } from "../workflows/when";
import "./content.css";

/** One version of something kept whole (the brand, a locale's texts), its content as dotted fields. */
export interface Snapshot {
  version: number;
  action: string;
  author: { name: string };
  createdAt: string;
  /** Null for a deletion: nothing to show or restore. */
  fields: Record<string, unknown> | null;
}

/** The API's RFC 6902 patch between two versions. */
export interface PatchAnswer {
  patch: { path: string }[];
}

/** `/colors/primary` → `colors.primary`; `/welcome.subject` (a flat translation key) stays `welcome.subject`. */
const fieldOfPointer = (pointer: string) =>
  pointer
    .slice(1)
    .split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");

/**
 * The versions of something with no key of its own to page by (the brand, one locale), newest
 * first: each compared with the one before it (the API's patch marks the fields) or restored.
 */
export function SnapshotHistory({
  title,
  versions,
  current,
  historyKey,
  diffQuery,
  restore,
  restoreNote,
  isConflict,
}: {
  title: string;
  versions: Snapshot[];
  current: number;
  /** Everything refreshed after a restore. */
  historyKey: QueryKey;
  diffQuery: (from: number, to: number) => { queryKey: QueryKey; queryFn: () => Promise<PatchAnswer> };
  restore: (v: Snapshot) => Promise<{ version: number }>;
  restoreNote: string;
  isConflict?: (error: unknown) => error is ApiError;
}) {
  const client = useQueryClient();
  const [pair, setPair] = useState<[number, number] | null>(null);
  const [dialog, ask] = useConfirm();
  const revert = useMutation({
    mutationFn: restore,
    onSuccess: () => client.invalidateQueries({ queryKey: historyKey }),
  });
  const askRevert = async (v: Snapshot) => {
    const yes = await ask({
      title: `Restore version ${v.version}?`,
      body: `Version ${v.version}'s content becomes version ${current + 1}; the versions in between stay in the history. ${restoreNote}`,
      confirm: `Restore version ${v.version}`,
      danger: true,
    });
    if (yes) revert.mutate(v);
  };
  const byVersion = new Map(versions.map((v) => [v.version, v]));

  return (
    <Card className="content-history" aria-label={title}>
      {dialog}
      <h2>{title}</h2>
      {isConflict?.(revert.error) ? (
        <div className="problem" role="alert" data-testid="conflict">
          <strong>Someone else changed this since you opened it</strong>
          <p>Nothing was restored. The history is up to date now: try again.</p>
        </div>
      ) : revert.error ? (
        <ProblemView error={revert.error} />
      ) : null}
      {revert.isSuccess ? (
        <p className="saved muted small" role="status">
          Restored version {revert.variables.version} as version {revert.data.version}.
        </p>
      ) : null}
      <DataList
        list={fixedList(versions)}
        what="versions"
        empty="No versions yet."
        compact
        columns={["Version", "Saved", "By", "Action", { label: "Actions" }]}
        row={(v) => (
          <tr key={v.version} data-version={v.version}>
            <td>
              {v.version} {v.version === current ? <Badge tone="ok">current</Badge> : null}
            </td>
            <td>
              <time dateTime={v.createdAt} title={new Date(v.createdAt).toLocaleString()}>
                {ago(v.createdAt)}
              </time>
            </td>
            <td>{v.author.name}</td>
            <td>{v.action}</td>
            <td>
              <div className="row-actions">
                {byVersion.has(v.version - 1) ? (
                  <Button type="button" onClick={() => setPair([v.version - 1, v.version])} aria-label={`Changes in version ${v.version}`}>
                    Changes
                  </Button>
                ) : null}
                {v.version !== current && v.fields ? (
                  <Button
                    type="button"
                    disabled={revert.isPending}
                    onClick={() => void askRevert(v)}
                    aria-label={`Revert to version ${v.version}`}
                  >
                    Revert…
                  </Button>
                ) : null}
              </div>
            </td>
          </tr>
        )}
      />
      {pair ? <SnapshotDiff before={byVersion.get(pair[0])} after={byVersion.get(pair[1])} diffQuery={diffQuery} /> : null}
    </Card>
  );
}

/** Two versions field by field, the fields the API's patch names marked as changed. */
function SnapshotDiff({
  before,
  after,
  diffQuery,
}: {
  before?: Snapshot;
  after?: Snapshot;
  diffQuery: (from: number, to: number) => { queryKey: QueryKey; queryFn: () => Promise<PatchAnswer> };
}) {
  const from = before?.version ?? 0;
  const to = after?.version ?? 0;
  const diff = useQuery({ ...diffQuery(from, to), staleTime: Number.POSITIVE_INFINITY, enabled: Boolean(before && after) });
  if (diff.error) return <ProblemView error={diff.error} />;
  if (!before || !after || !diff.data) return <p className="muted">Loading the difference…</p>;
  const fields = diff.data.patch.map((op) => fieldOfPointer(op.path));
  const rows = pairRows(rowsOf(Object.entries(before.fields ?? {})), rowsOf(Object.entries(after.fields ?? {})), fields).filter(
    (r) => r.changed,
  );
  return (
    <div className="content-diff" data-testid="content-diff">
      <h3>
        Version {from} → version {to}
      </h3>
      {rows.length === 0 ? (
        <p className="muted">No field changed.</p>
      ) : (
        <FieldDiffTable heads={[`Version ${from}`, `Version ${to}`]}>
          <tbody>
            {rows.map((row) => (
              <DiffRow key={row.path} row={row} />
            ))}
          </tbody>
        </FieldDiffTable>
      )}
    </div>
  );
}

/** An object's leaves as dotted fields (`colors.primary`); arrays stay whole. */
export function dottedFields(value: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof inner === "object" && inner !== null && !Array.isArray(inner))
      Object.assign(out, dottedFields(inner as Record<string, unknown>, path));
    else out[path] = inner;
  }
  return out;
}
