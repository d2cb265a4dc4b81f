import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { Select } from "../../ui/Select";
import { Textarea } from "../../ui/Textarea";
import { ContentHistory, isContentConflict } from "../content-versions/ContentHistory";
import { InUseProblem } from "../content-versions/InUseProblem";
import { deletePartialMutation, type Partial, partialQuery, savePartialMutation } from "./queries";
import "../layouts/layouts.css";

/** /partials/new creates one; /partials/:key edits it, with its versions below. */
export function PartialPage() {
  const { key } = useParams();
  const api = useApi();
  const partial = useQuery({ ...partialQuery(api, key ?? ""), enabled: key !== undefined });
  return (
    <>
      <PageHeader title={key ? <code>{key}</code> : "New partial"} />
      <p>
        <Link to="/partials">← Partials</Link>
      </p>
      {partial.error ? <ProblemView error={partial.error} /> : null}
      {key === undefined ? (
        <PartialForm />
      ) : partial.data ? (
        <>
          <PartialForm key={partial.data.version} partial={partial.data} onReload={() => void partial.refetch()} />
          <ContentHistory
            kind="partials"
            contentKey={partial.data.key}
            current={partial.data.version}
            onReverted={() => void partial.refetch()}
          />
        </>
      ) : partial.isPending ? (
        <Loading what="the partial" />
      ) : null}
    </>
  );
}

function PartialForm({ partial, onReload }: { partial?: Partial; onReload?: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const [key, setKey] = useState("");
  const [name, setName] = useState(partial?.name ?? "");
  const [description, setDescription] = useState(partial?.description ?? "");
  const [content, setContent] = useState(partial?.content ?? "");
  const [type, setType] = useState<Partial["type"]>(partial?.type ?? "html");
  const save = useMutation(savePartialMutation(api, partial));
  const remove = useMutation(deletePartialMutation(api));
  const [dialog, ask] = useConfirm();
  const askDelete = async (item: Partial) => {
    const yes = await ask({
      title: `Delete ${item.key}?`,
      body: "Triggers already accepted still render with it.",
      confirm: "Delete partial",
      danger: true,
    });
    if (yes) remove.mutate(item, { onSuccess: () => navigate("/partials") });
  };
  const errorOf = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = { key: partial ? partial.key : key.trim(), name: name.trim(), description: description.trim() || null, content, type };
    save.mutate(body, { onSuccess: (saved) => (partial ? undefined : navigate(`/partials/${saved.key}`)) });
  };
  const conflict = isContentConflict(save.error) || isContentConflict(remove.error);

  return (
    <>
      {dialog}
      <Card as="form" className="layout-form partial-form" onSubmit={submit} noValidate aria-label="Partial">
        {partial ? null : (
          <Field label="Key" hint={'Templates render it as {% render "key" %}; it never changes.'} error={errorOf("key")}>
            <Input value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" spellCheck={false} placeholder="footer" />
          </Field>
        )}
        <Field label="Name" error={errorOf("name")}>
          <Input value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Description" error={errorOf("description")}>
          <Input value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field label="Type" hint="HTML is escaped as email HTML is; text is plain." error={errorOf("type")}>
          <Select value={type} onChange={(e) => setType(e.target.value === "text" ? "text" : "html")}>
            <option value="html">HTML</option>
            <option value="text">Text</option>
          </Select>
        </Field>
        <Field label="Content" hint="Liquid; sees only the arguments of the render that includes it." error={errorOf("content")}>
          <Textarea className="code" rows={12} spellCheck={false} value={content} onChange={(e) => setContent(e.target.value)} />
        </Field>
        {conflict ? (
          <div className="problem conflict" role="alert" data-testid="conflict">
            <strong>Someone else changed this partial</strong>
            <p>
              Nothing was saved: you were editing version {partial?.version}, and it has been saved since. Reload their version (your
              changes here are lost).
            </p>
            <Button type="button" variant="primary" onClick={onReload}>
              Reload their version
            </Button>
          </div>
        ) : save.error ? (
          <ProblemView error={save.error} />
        ) : remove.error ? (
          <InUseProblem error={remove.error} what={`Partial ${partial?.key ?? ""}`} />
        ) : null}
        {save.isSuccess && partial ? (
          <p className="saved muted small" role="status">
            Saved as version {save.data.version}.
          </p>
        ) : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : partial ? "Save" : "Create partial"}
          </Button>
          {partial ? (
            <Button type="button" variant="danger" disabled={remove.isPending} onClick={() => void askDelete(partial)}>
              Delete
            </Button>
          ) : null}
        </div>
      </Card>
    </>
  );
}
