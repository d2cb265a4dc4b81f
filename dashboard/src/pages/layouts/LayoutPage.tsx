import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Field } from "../../ui/Field";
import { Checkbox, Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { Textarea } from "../../ui/Textarea";
import { ContentHistory, isContentConflict } from "../content-versions/ContentHistory";
import { InUseProblem } from "../content-versions/InUseProblem";
import { LayoutPreview } from "./LayoutPreview";
import { STARTER_HTML } from "./preview";
import { deleteLayoutMutation, type Layout, layoutQuery, saveLayoutMutation } from "./queries";
import "./layouts.css";

/** /layouts/new creates one; /layouts/:key edits it beside its live preview, with its versions below. */
export function LayoutPage() {
  const { key } = useParams();
  const api = useApi();
  const layout = useQuery({ ...layoutQuery(api, key ?? ""), enabled: key !== undefined });
  return (
    <>
      <PageHeader title={key ? <code>{key}</code> : "New layout"} />
      <p>
        <Link to="/layouts">← Layouts</Link>
      </p>
      {layout.error ? <ProblemView error={layout.error} /> : null}
      {key === undefined ? (
        <LayoutForm />
      ) : layout.data ? (
        <>
          <LayoutForm key={layout.data.version} layout={layout.data} onReload={() => void layout.refetch()} />
          <ContentHistory
            kind="layouts"
            contentKey={layout.data.key}
            current={layout.data.version}
            onReverted={() => void layout.refetch()}
          />
        </>
      ) : layout.isPending ? (
        <Loading what="the layout" />
      ) : null}
    </>
  );
}

function LayoutForm({ layout, onReload }: { layout?: Layout; onReload?: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const [key, setKey] = useState("");
  const [name, setName] = useState(layout?.name ?? "");
  const [description, setDescription] = useState(layout?.description ?? "");
  const [html, setHtml] = useState(layout?.html ?? STARTER_HTML);
  const [text, setText] = useState(layout?.text ?? "");
  const [isDefault, setIsDefault] = useState(layout?.isDefault ?? false);
  const save = useMutation(saveLayoutMutation(api, layout));
  const remove = useMutation(deleteLayoutMutation(api));
  const [dialog, ask] = useConfirm();
  const askDelete = async (item: Layout) => {
    const yes = await ask({
      title: `Delete ${item.key}?`,
      body: "Triggers already accepted still render with it.",
      confirm: "Delete layout",
      danger: true,
    });
    if (yes) remove.mutate(item, { onSuccess: () => navigate("/layouts") });
  };
  const errorOf = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = {
      key: layout ? layout.key : key.trim(),
      name: name.trim(),
      description: description.trim() || null,
      html,
      text: text.trim() ? text : null,
      isDefault,
    };
    save.mutate(body, { onSuccess: (saved) => (layout ? undefined : navigate(`/layouts/${saved.key}`)) });
  };
  const conflict = isContentConflict(save.error) || isContentConflict(remove.error);

  return (
    <div className="layout-editor">
      {dialog}
      <Card as="form" className="layout-form" onSubmit={submit} noValidate aria-label="Layout">
        {layout ? null : (
          <Field label="Key" hint="Email steps name it; it never changes." error={errorOf("key")}>
            <Input value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" spellCheck={false} placeholder="default" />
          </Field>
        )}
        <Field label="Name" error={errorOf("name")}>
          <Input value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Description" error={errorOf("description")}>
          <Input value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field label="HTML" hint="Liquid, with {{ content }} once: the step's HTML goes there." error={errorOf("html")}>
          <Textarea className="code" rows={16} spellCheck={false} value={html} onChange={(e) => setHtml(e.target.value)} />
        </Field>
        <Field
          label="Plain text (optional)"
          hint="With {{ content }} once; left empty, the text part is made from the HTML."
          error={errorOf("text")}
        >
          <Textarea className="code" rows={5} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} />
        </Field>
        <label className="checkbox">
          <Checkbox checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
          Default layout <span className="muted small">For email steps that name no layout; takes the flag from the current default.</span>
        </label>
        {conflict ? (
          <div className="problem conflict" role="alert" data-testid="conflict">
            <strong>Someone else changed this layout</strong>
            <p>
              Nothing was saved: you were editing version {layout?.version}, and it has been saved since. Reload their version (your changes
              here are lost), or copy your HTML first.
            </p>
            <Button type="button" variant="primary" onClick={onReload}>
              Reload their version
            </Button>
          </div>
        ) : save.error ? (
          <ProblemView error={save.error} />
        ) : remove.error ? (
          <InUseProblem error={remove.error} what={`Layout ${layout?.key ?? ""}`} />
        ) : null}
        {save.isSuccess && layout ? (
          <p className="saved muted small" role="status">
            Saved as version {save.data.version}.
          </p>
        ) : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : layout ? "Save" : "Create layout"}
          </Button>
          {layout ? (
            <Button type="button" variant="danger" disabled={remove.isPending} onClick={() => void askDelete(layout)}>
              Delete
            </Button>
          ) : null}
        </div>
      </Card>
      <LayoutPreview html={html} text={text} />
    </div>
  );
}
