import { type UseMutationOptions, type UseQueryResult, useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { ContentHistory, isContentConflict } from "./ContentHistory";
import { InUseProblem } from "./InUseProblem";
import type { ContentKind } from "./queries";
import "./content.css";

/** What every versioned, keyed piece of content has (a layout, a partial). */
export interface KeyedContent {
  key: string;
  name: string;
  description: string | null;
  version: number;
}

/** The fields the shared form owns; the kind's own fields are added by its `toBody`. */
export interface CommonFields {
  key: string;
  name: string;
  description: string | null;
}

/**
 * `/<kind>/new` creates one; `/<kind>/:key` edits it, with its versions below. `form` draws the
 * editor for the loaded item (keyed by its version, so a reload or a revert starts it afresh).
 */
export function ContentPage<T extends KeyedContent>({
  kind,
  noun,
  contentKey,
  query,
  form,
}: {
  kind: ContentKind;
  noun: string;
  contentKey: string | undefined;
  query: UseQueryResult<T>;
  form: (item: T | undefined, reload: () => void) => ReactNode;
}) {
  const reload = () => void query.refetch();
  return (
    <>
      <PageHeader title={contentKey ? <code>{contentKey}</code> : `New ${noun}`} />
      <p>
        <Link to={`/${kind}`}>← {kind === "layouts" ? "Layouts" : "Partials"}</Link>
      </p>
      {query.error ? <ProblemView error={query.error} /> : null}
      {contentKey === undefined ? (
        form(undefined, reload)
      ) : query.data ? (
        <>
          {form(query.data, reload)}
          <ContentHistory kind={kind} contentKey={query.data.key} current={query.data.version} onReverted={reload} />
        </>
      ) : query.isPending ? (
        <Loading what={`the ${noun}`} />
      ) : null}
    </>
  );
}

/**
 * The editor both layouts and partials use: key (only when new), name and description, the kind's
 * own fields (`children`, its body editor among them), a live preview beside, the save at the
 * version read (a conflict offers to reload) and the delete (refused while in use).
 */
export function ContentForm<T extends KeyedContent, B, R>({
  kind,
  noun,
  item,
  keyHint,
  keyPlaceholder,
  save: saveOptions,
  remove: removeOptions,
  toBody,
  conflictNote,
  preview,
  className,
  children,
  onReload,
}: {
  kind: ContentKind;
  noun: string;
  item?: T;
  keyHint: string;
  keyPlaceholder: string;
  save: UseMutationOptions<T, Error, B>;
  remove: UseMutationOptions<R, Error, T>;
  toBody: (common: CommonFields) => B;
  conflictNote: string;
  preview: ReactNode;
  className?: string;
  /** The kind's own fields; `errorOf` gives each its problem from the last save. */
  children: (errorOf: (path: string) => string | undefined) => ReactNode;
  onReload: () => void;
}) {
  const navigate = useNavigate();
  const [key, setKey] = useState("");
  const [name, setName] = useState(item?.name ?? "");
  const [description, setDescription] = useState(item?.description ?? "");
  const save = useMutation(saveOptions);
  const remove = useMutation(removeOptions);
  const [dialog, ask] = useConfirm();
  const askDelete = async (current: T) => {
    const yes = await ask({
      title: `Delete ${current.key}?`,
      body: "Triggers already accepted still render with it.",
      confirm: `Delete ${noun}`,
      danger: true,
    });
    if (yes) remove.mutate(current, { onSuccess: () => navigate(`/${kind}`) });
  };
  const errorOf = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = toBody({ key: item ? item.key : key.trim(), name: name.trim(), description: description.trim() || null });
    save.mutate(body, { onSuccess: (saved) => (item ? undefined : navigate(`/${kind}/${saved.key}`)) });
  };
  const conflict = isContentConflict(save.error) || isContentConflict(remove.error);
  const title = `${noun[0]?.toUpperCase()}${noun.slice(1)}`;

  return (
    <div className="content-editor">
      {dialog}
      <Card as="form" className={`content-form ${className ?? ""}`} onSubmit={submit} noValidate aria-label={title}>
        {item ? null : (
          <Field label="Key" hint={keyHint} error={errorOf("key")}>
            <Input
              value={key}
              onChange={(e) => setKey(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder={keyPlaceholder}
            />
          </Field>
        )}
        <Field label="Name" error={errorOf("name")}>
          <Input value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Description" error={errorOf("description")}>
          <Input value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        {children(errorOf)}
        {conflict ? (
          <div className="problem conflict" role="alert" data-testid="conflict">
            <strong>Someone else changed this {noun}</strong>
            <p>
              Nothing was saved: you were editing version {item?.version}, and it has been saved since. {conflictNote}
            </p>
            <Button type="button" variant="primary" onClick={onReload}>
              Reload their version
            </Button>
          </div>
        ) : save.error ? (
          <ProblemView error={save.error} />
        ) : remove.error ? (
          <InUseProblem error={remove.error} what={`${title} ${item?.key ?? ""}`} />
        ) : null}
        {save.isSuccess && item ? (
          <p className="saved muted small" role="status">
            Saved as version {save.data.version}.
          </p>
        ) : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : item ? "Save" : `Create ${noun}`}
          </Button>
          {item ? (
            <Button type="button" variant="danger" disabled={remove.isPending} onClick={() => void askDelete(item)}>
              Delete
            </Button>
          ) : null}
        </div>
      </Card>
      {preview}
    </div>
  );
}
