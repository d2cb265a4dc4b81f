import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { deleteVariableMutation, variablesQuery } from "./queries";
import "./variables.css";
import { Button } from "../../ui/Button";
import { Badge } from "../../ui/Badge";

/** Environment variables for templates and conditions (`vars.<key>`); a secret's value is never shown. */
export function VariablesPage() {
  const api = useApi();
  const list = useInfiniteQuery(variablesQuery(api));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(deleteVariableMutation(api));

  return (
    <>
      {dialog}
      <PageHeader title="Variables">
        <Button asChild variant="primary">
          <Link to="/variables/new">New variable</Link>
        </Button>
      </PageHeader>
      <p className="muted">
        Templates and conditions read these as <code>vars.KEY</code>. A secret variable's value is stored encrypted and never shown again.
      </p>
      {remove.error ? <ProblemView error={remove.error} /> : null}
      <DataList
        list={list}
        what="variables"
        empty="No variables yet."
        className="variables"
        columns={["Key", "Value", "Updated", null]}
        row={(v) => (
          <tr key={v.key} data-key={v.key}>
            <td>
              <Link to={`/variables/${v.key}`}>
                <code>{v.key}</code>
              </Link>
            </td>
            <td className="value">
              {v.secret ? (
                <>
                  <Badge tone="warn">secret</Badge> <span className="muted">{v.value}</span>
                </>
              ) : (
                <code>{v.value}</code>
              )}
            </td>
            <td>{new Date(v.updatedAt).toLocaleString()}</td>
            <td>
              <div className="row-actions">
                <Button asChild>
                  <Link to={`/variables/${v.key}`} aria-label={`Edit ${v.key}`}>
                    Edit
                  </Link>
                </Button>
                <Button
                  type="button"
                  variant="danger"
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
                </Button>
              </div>
            </td>
          </tr>
        )}
      />
    </>
  );
}
