import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { saveVariableMutation, type Variable, variableQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./variables.css";
import { Button } from "../../ui/Button";
import { Checkbox, Input } from "../../ui/Input";
import { Textarea } from "../../ui/Textarea";

/** /variables/new creates one; /variables/:key changes its value or secrecy. */
export function VariablePage() {
  const { key } = useParams();
  const api = useApi();
  const variable = useQuery({ ...variableQuery(api, key ?? ""), enabled: key !== undefined });
  return (
    <>
      <PageHeader title={key ? <code>{key}</code> : "New variable"} />
      <p>
        <Link to="/variables">← Variables</Link>
      </p>
      {variable.error ? <ProblemView error={variable.error} /> : null}
      {key === undefined ? (
        <VariableForm />
      ) : variable.data ? (
        <VariableForm key={variable.data.updatedAt} variable={variable.data} />
      ) : variable.isPending ? (
        <Loading what="the variable" />
      ) : null}
    </>
  );
}

/** A secret's value is never put back into the input: left empty, it stays as stored. */
function VariableForm({ variable }: { variable?: Variable }) {
  const api = useApi();
  const navigate = useNavigate();
  const [key, setKey] = useState("");
  const [value, setValue] = useState(variable && !variable.secret ? variable.value : "");
  const [secret, setSecret] = useState(variable?.secret ?? false);
  const save = useMutation(andThen(saveVariableMutation(api, variable), () => navigate("/variables")));
  const errorOf = (path: string) => (save.error instanceof ApiError ? save.error.fieldError(path) : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ key: key.trim(), value, secret });
  };
  const keepsSecret = variable?.secret === true;

  return (
    <form className="variable-form card" onSubmit={submit} noValidate>
      {variable ? null : (
        <Field label="Key" hint="Letters, digits and _; starts with a letter or _." error={errorOf("key")}>
          <Input value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" spellCheck={false} placeholder="SUPPORT_EMAIL" />
        </Field>
      )}
      <Field
        label="Value"
        hint={keepsSecret ? "Secret: the stored value is not shown. Leave empty to keep it, or type a new one." : undefined}
        error={errorOf("value")}
      >
        {secret ? (
          <Input
            type="password"
            autoComplete="new-password"
            value={value}
            placeholder={keepsSecret ? "•••••••• (stored)" : undefined}
            onChange={(e) => setValue(e.target.value)}
          />
        ) : (
          <Textarea rows={3} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} />
        )}
      </Field>
      <label className="checkbox">
        <Checkbox checked={secret} onChange={(e) => setSecret(e.target.checked)} />
        Secret <span className="muted small">Masked in every answer and in this dashboard.</span>
      </label>
      {save.error ? <ProblemView error={save.error} /> : null}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : variable ? "Save" : "Create variable"}
        </Button>
      </div>
    </form>
  );
}
