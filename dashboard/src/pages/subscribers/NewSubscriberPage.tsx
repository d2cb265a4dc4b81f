import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { standingError } from "../../ui/standing-errors";
import { createSubscriberMutation, SubscriberTaken } from "./queries";
import { andThen } from "../../api/mutations";
import { subscriberPath } from "./search";
import "./subscribers.css";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

const FIELDS = [
  { name: "email", label: "Email", type: "email", placeholder: "ada@example.com" },
  { name: "phone", label: "Phone", type: "tel", placeholder: "+41791234567" },
  { name: "firstName", label: "First name", type: "text", placeholder: "Ada" },
  { name: "lastName", label: "Last name", type: "text", placeholder: "Lovelace" },
] as const;
type Name = "subscriberId" | (typeof FIELDS)[number]["name"];

/** Says so when the id is taken: POST /sub would update that subscriber instead of creating one. */
/** A new subscriber by hand (the API also creates them with POST /sub or inline in a trigger). */
export function NewSubscriberPage() {
  const api = useApi();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<Name, string>>({ subscriberId: "", email: "", phone: "", firstName: "", lastName: "" });
  const body = () => {
    const input: Record<string, string> = { subscriberId: values.subscriberId.trim() };
    for (const { name } of FIELDS) if (values[name].trim()) input[name] = values[name].trim();
    return input as { subscriberId: string };
  };
  const create = useMutation(andThen(createSubscriberMutation(api), (created) => navigate(subscriberPath(created.subscriberId))));
  const error = standingError(create.error, create.variables, body());
  const fieldError = (path: Name) => (error instanceof ApiError ? error.fieldError(path) : undefined);
  const shownAbove = error instanceof ApiError && error.problem.errors?.every((e) => e.path in values);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(body());
  }

  return (
    <>
      <PageHeader title="New subscriber">
        <Link to="/subscribers">All subscribers</Link>
      </PageHeader>
      <Card as="form" className="new-subscriber" onSubmit={submit} aria-label="New subscriber">
        <Field label="Subscriber id" error={fieldError("subscriberId")} hint="Your own id for this person; it never changes.">
          <Input
            value={values.subscriberId}
            spellCheck={false}
            autoCapitalize="off"
            required
            onChange={(e) => setValues({ ...values, subscriberId: e.target.value })}
          />
        </Field>
        {FIELDS.map((f) => (
          <Field key={f.name} label={f.label} error={fieldError(f.name)}>
            <Input
              type={f.type}
              value={values[f.name]}
              placeholder={f.placeholder}
              onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
            />
          </Field>
        ))}
        {create.error instanceof SubscriberTaken && create.variables?.subscriberId === values.subscriberId.trim() ? (
          <p className="problem" role="alert">
            A subscriber <Link to={subscriberPath(create.error.message)}>{create.error.message}</Link> exists already: edit it there.
          </p>
        ) : null}
        {error && !(error instanceof SubscriberTaken) && !shownAbove ? <ProblemView error={error} /> : null}
        <Button type="submit" variant="primary" disabled={create.isPending || !values.subscriberId.trim()}>
          Create subscriber
        </Button>
      </Card>
    </>
  );
}
