import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList } from "../../ui/DataList";
import { DiffRow, FieldDiffTable } from "../../ui/FieldDiff";
import { pairRows, rowsOf } from "../../ui/field-diff";
import { ProblemView } from "../../ui/ProblemView";
import { ago } from "../workflows/when";
import "./content.css";
import {
  CONFLICT_CODES,
  type ContentKind,
  type ContentVersion,
  contentDiffQuery,
  contentVersionQuery,
  contentVersionsQuery,
  revertContent,
} from "./queries";

/** Whether `error` is a write refused because the content changed since it was read (412 or 409). */
export const isContentConflict = (error: unknown): error is ApiError =>
  error instanceof ApiError && (CONFLICT_CODES as readonly string[]).includes(error.problem.code);

const fieldsOf = (v: ContentVersion | undefined) => (v ? rowsOf(Object.entries(v.definition)) : []);

/**
 * A layout's or partial's versions, newest first: each can be compared with the one before it or
 * restored. A revert names the version the page loaded, so it never restores over an unseen change.
 */
export function ContentHistory({
  kind,
  contentKey,
  current,
  onReverted,
}: {
  kind: ContentKind;
  contentKey: string;
  current: number;
  onReverted: () => void;
}) {
  const api = useApi();
  const client = useQueryClient();
  const list = useInfiniteQuery(contentVersionsQuery(api, kind, contentKey));
  const [pair, setPair] = useState<[number, number] | null>(null);
  const [dialog, ask] = useConfirm();
  const revert = useMutation({
    mutationFn: (n: number) => revertContent(api, kind, contentKey, n, current),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: [kind] });
      onReverted();
    },
  });
  const askRevert = async (n: number) => {
    const yes = await ask({
      title: `Restore version ${n}?`,
      body: `Version ${n}'s content becomes version ${current + 1}; the versions in between stay in the history.`,
      confirm: `Restore version ${n}`,
      danger: true,
    });
    if (yes) revert.mutate(n);
  };

  return (
    <Card className="content-history" aria-labelledby="versions-title">
      {dialog}
      <h2 id="versions-title">Versions</h2>
      {isContentConflict(revert.error) ? (
        <div className="problem" role="alert" data-testid="conflict">
          <strong>Someone else changed this since you opened it</strong>
          <p>Nothing was restored. Reload the page to see the current version, then try again.</p>
        </div>
      ) : revert.error ? (
        <ProblemView error={revert.error} />
      ) : null}
      {revert.isSuccess ? (
        <p className="saved muted small" role="status">
          Restored version {revert.variables} as version {revert.data.version}.
        </p>
      ) : null}
      <DataList
        list={list}
        what="versions"
        empty="No versions yet."
        more="Older versions"
        compact
        columns={["Version", "Saved", "By", "What changed", { label: "Actions" }]}
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
            <td className="summary">{v.summary}</td>
            <td>
              <div className="row-actions">
                {v.version > 1 ? (
                  <Button type="button" onClick={() => setPair([v.version - 1, v.version])} aria-label={`Changes in version ${v.version}`}>
                    Changes
                  </Button>
                ) : null}
                {v.version !== current ? (
                  <Button
                    type="button"
                    disabled={revert.isPending}
                    onClick={() => void askRevert(v.version)}
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
      {pair ? <ContentDiff kind={kind} contentKey={contentKey} from={pair[0]} to={pair[1]} /> : null}
    </Card>
  );
}

/** Two versions field by field, the fields the API's patch names marked as changed. */
function ContentDiff({ kind, contentKey, from, to }: { kind: ContentKind; contentKey: string; from: number; to: number }) {
  const api = useApi();
  const before = useQuery(contentVersionQuery(api, kind, contentKey, from));
  const after = useQuery(contentVersionQuery(api, kind, contentKey, to));
  const diff = useQuery(contentDiffQuery(api, kind, contentKey, from, to));
  const error = before.error ?? after.error ?? diff.error;
  if (error) return <ProblemView error={error} />;
  if (!before.data || !after.data || !diff.data) return <p className="muted">Loading the difference…</p>;
  const rows = pairRows(fieldsOf(before.data), fieldsOf(after.data), diff.data.fields).filter((r) => r.changed);
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
