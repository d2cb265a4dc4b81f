import { CURSOR_PAGES } from "../../api/cursor-pages";
import { MoreButton } from "../../ui/MoreButton";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import "./variables.css";
import { useConfirm } from "../../ui/ConfirmDialog";

type Variable = components["schemas"]["Variable"];

/** Environment variables for templates and conditions (`vars.<key>`); a secret's value is never shown. */
export function VariablesPage() {
  const queryClient = useQueryClient();
  const list = useInfiniteQuery({
    queryKey: ["variables"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/variables", { params: { query: { cursor: pageParam, limit: 100 } } })),
    ...CURSOR_PAGES,
  });
  const [dialog, ask] = useConfirm();
  const remove = useMutation({
    mutationFn: (v: Variable) => unwrap(api.DELETE("/v1/variables/{key}", { params: { path: { key: v.key } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["variables"] }),
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <>
      {dialog}
      <PageHeader title="Variables">
        <Link className="button primary" to="/variables/new">
          New variable
        </Link>
      </PageHeader>
      <p className="muted">
        Templates and conditions read these as <code>vars.KEY</code>. A secret variable's value is stored encrypted and never shown again.
      </p>
      {list.error ? <ProblemView error={list.error} /> : null}
      {remove.error ? <ProblemView error={remove.error} /> : null}
      {list.isPending ? (
        <Loading what="variables" />
      ) : rows.length === 0 && !list.error ? (
        <p className="empty muted">No variables yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="variables">
            <thead>
              <tr>
                <th>Key</th>
                <th>Value</th>
                <th>Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((v) => (
                <tr key={v.key} data-key={v.key}>
                  <td>
                    <Link to={`/variables/${v.key}`}>
                      <code>{v.key}</code>
                    </Link>
                  </td>
                  <td className="value">
                    {v.secret ? (
                      <>
                        <span className="badge warn">secret</span> <span className="muted">{v.value}</span>
                      </>
                    ) : (
                      <code>{v.value}</code>
                    )}
                  </td>
                  <td>{new Date(v.updatedAt).toLocaleString()}</td>
                  <td>
                    <div className="row-actions">
                      <Link className="button" to={`/variables/${v.key}`} aria-label={`Edit ${v.key}`}>
                        Edit
                      </Link>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Delete ${v.key}`}
                        disabled={remove.isPending}
                        onClick={async () => {
                          const yes = await ask({
                            title: `Delete ${v.key}?`,
                            body: "Templates that use it render it empty from now on.",
                            confirm: "Delete variable",
                            danger: true,
                          });
                          if (yes) remove.mutate(v);
                        }}
                      >
                        Delete
                      </button>
                    </div>
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
