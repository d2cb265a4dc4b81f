import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { useConfirm } from "../../ui/ConfirmDialog";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { InUseProblem } from "../content-versions/InUseProblem";
import { isContentConflict } from "../content-versions/ContentHistory";
import { deleteLayoutMutation, layoutsQuery, makeDefaultLayoutMutation } from "./queries";
import "./layouts.css";

/** An email's frame, written once: email steps name one, none, or take the environment's default. */
export function LayoutsPage() {
  const api = useApi();
  const list = useInfiniteQuery(layoutsQuery(api));
  const [dialog, ask] = useConfirm();
  const remove = useMutation(deleteLayoutMutation(api));
  const makeDefault = useMutation(makeDefaultLayoutMutation(api));
  const failure = remove.error ?? makeDefault.error;

  return (
    <>
      {dialog}
      <PageHeader title="Layouts">
        <Button asChild variant="primary">
          <Link to="/layouts/new">New layout</Link>
        </Button>
      </PageHeader>
      <p className="muted">
        A layout wraps an email step's HTML: the step's content goes where the layout has <code>{"{{ content }}"}</code>. Email steps that
        name no layout get the default one.
      </p>
      {isContentConflict(failure) ? (
        <p className="problem" role="alert">
          Someone else changed this layout since the list was loaded; nothing was changed. The list is up to date now: try again.
        </p>
      ) : remove.error ? (
        <InUseProblem error={remove.error} what={`Layout ${remove.variables?.key ?? ""}`} />
      ) : makeDefault.error ? (
        <ProblemView error={makeDefault.error} />
      ) : null}
      <DataList
        list={list}
        what="layouts"
        empty="No layouts yet."
        className="layouts"
        columns={["Key", "Name", "Version", "Updated", { label: "Actions" }]}
        row={(l) => (
          <tr key={l.key} data-key={l.key}>
            <td>
              <Link to={`/layouts/${l.key}`}>
                <code>{l.key}</code>
              </Link>{" "}
              {l.isDefault ? <Badge tone="info">default</Badge> : null}
            </td>
            <td>{l.name}</td>
            <td>{l.version}</td>
            <td>{new Date(l.updatedAt).toLocaleString()}</td>
            <td>
              <div className="row-actions">
                {l.isDefault ? null : (
                  <Button
                    type="button"
                    aria-label={`Make ${l.key} the default`}
                    disabled={makeDefault.isPending}
                    onClick={() => makeDefault.mutate(l)}
                  >
                    Make default
                  </Button>
                )}
                <Button asChild>
                  <Link to={`/layouts/${l.key}`} aria-label={`Edit ${l.key}`}>
                    Edit
                  </Link>
                </Button>
                <Button
                  type="button"
                  variant="danger"
                  aria-label={`Delete ${l.key}`}
                  disabled={remove.isPending}
                  onClick={async () => {
                    const yes = await ask({
                      title: `Delete ${l.key}?`,
                      body: l.isDefault
                        ? "It is the default layout: email steps that name no layout are sent without one from now on."
                        : "Triggers already accepted still render with it.",
                      confirm: "Delete layout",
                      danger: true,
                    });
                    if (yes) remove.mutate(l);
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
