import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { isContentConflict } from "../content-versions/ContentHistory";
import { InUseProblem } from "../content-versions/InUseProblem";
import { deletePartialMutation, partialsQuery } from "./queries";
import "../layouts/layouts.css";

/** Blocks written once and rendered from any template with `{% render "key", name: value %}`. */
export function PartialsPage() {
  const api = useApi();
  const list = useInfiniteQuery(partialsQuery(api));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(deletePartialMutation(api));

  return (
    <>
      {dialog}
      <PageHeader title="Partials">
        <Button asChild variant="primary">
          <Link to="/partials/new">New partial</Link>
        </Button>
      </PageHeader>
      <p className="muted">
        Any template, layout or partial renders one with <code>{'{% render "footer", cta: "Open" %}'}</code>; it sees only the arguments
        given.
      </p>
      {isContentConflict(remove.error) ? (
        <p className="problem" role="alert">
          Someone else changed this partial since the list was loaded; nothing was deleted. The list is up to date now: try again.
        </p>
      ) : remove.error ? (
        <InUseProblem error={remove.error} what={`Partial ${remove.variables?.key ?? ""}`} />
      ) : null}
      <DataList
        list={list}
        what="partials"
        empty="No partials yet."
        className="partials"
        columns={["Key", "Name", "Type", "Version", "Updated", { label: "Actions" }]}
        row={(p) => (
          <tr key={p.key} data-key={p.key}>
            <td>
              <Link to={`/partials/${p.key}`}>
                <code>{p.key}</code>
              </Link>
            </td>
            <td>{p.name}</td>
            <td>
              <Badge>{p.type}</Badge>
            </td>
            <td>{p.version}</td>
            <td>{new Date(p.updatedAt).toLocaleString()}</td>
            <td>
              <div className="row-actions">
                <Button asChild>
                  <Link to={`/partials/${p.key}`} aria-label={`Edit ${p.key}`}>
                    Edit
                  </Link>
                </Button>
                <Button
                  type="button"
                  variant="danger"
                  aria-label={`Delete ${p.key}`}
                  disabled={remove.isPending}
                  onClick={async () => {
                    const yes = await ask({
                      title: `Delete ${p.key}?`,
                      body: "Triggers already accepted still render with it.",
                      confirm: "Delete partial",
                      danger: true,
                    });
                    if (yes) remove.mutate(p);
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
