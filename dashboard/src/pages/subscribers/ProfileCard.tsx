import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useApi } from "../../api/context";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { ProblemView } from "../../ui/ProblemView";
import { saveProfileMutation, type Subscriber, type SubscriberInput } from "./queries";
import { andThen } from "../../api/mutations";
import { fullName } from "./search";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Textarea } from "../../ui/Textarea";
import { Card } from "../../ui/Card";

const TEXT_FIELDS = [
  { name: "firstName", label: "First name" },
  { name: "lastName", label: "Last name" },
  { name: "email", label: "Email", type: "email" },
  { name: "phone", label: "Phone", hint: "E.164, e.g. +41791234567", type: "tel" },
  { name: "avatar", label: "Avatar URL", type: "url" },
  { name: "locale", label: "Locale", hint: "BCP 47, e.g. de-CH" },
  { name: "timezone", label: "Time zone", hint: "IANA, e.g. Europe/Zurich" },
] as const;
const FORM_FIELDS = [...TEXT_FIELDS.map((f) => f.name), "data"];
type TextField = (typeof TEXT_FIELDS)[number]["name"];
type ProfileForm = Record<TextField, string> & { data: string };

const toForm = (s: Subscriber): ProfileForm => ({
  firstName: s.firstName ?? "",
  lastName: s.lastName ?? "",
  email: s.email ?? "",
  phone: s.phone ?? "",
  avatar: s.avatar ?? "",
  locale: s.locale ?? "",
  timezone: s.timezone ?? "",
  data: s.data ? JSON.stringify(s.data, null, 2) : "",
});

function parseData(text: string): Record<string, unknown> | null | Error {
  if (!text.trim()) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // falls through to the message below
  }
  return new Error('Use a JSON object, e.g. {"plan": "pro"}.');
}

/** The profile, and editing it through `POST /sub`: only changed fields are sent, and an emptied field is cleared. */
export function ProfileCard({ subscriber }: { subscriber: Subscriber }) {
  const [editing, setEditing] = useState(false);
  return (
    <Card aria-labelledby="profile-title">
      <div className="sub-card-header">
        <h2 id="profile-title">Profile</h2>
        {editing ? null : (
          <Button type="button" onClick={() => setEditing(true)}>
            Edit profile
          </Button>
        )}
      </div>
      {editing ? (
        <ProfileEditor subscriber={subscriber} onDone={() => setEditing(false)} />
      ) : (
        <dl className="sub-facts">
          <dt>Name</dt>
          <dd>{fullName(subscriber) ?? <span className="muted">—</span>}</dd>
          {TEXT_FIELDS.filter((f) => f.name !== "firstName" && f.name !== "lastName").map((f) => (
            <Fact key={f.name} label={f.label} value={subscriber[f.name]} />
          ))}
          <dt>Data</dt>
          <dd>
            {subscriber.data ? (
              <pre className="sub-data">{JSON.stringify(subscriber.data, null, 2)}</pre>
            ) : (
              <span className="muted">—</span>
            )}
          </dd>
          <dt>Created</dt>
          <dd>{new Date(subscriber.createdAt).toLocaleString()}</dd>
          <dt>Updated</dt>
          <dd>{new Date(subscriber.updatedAt).toLocaleString()}</dd>
        </dl>
      )}
    </Card>
  );
}

function Fact({ label, value }: { label: string; value: string | null }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value ?? <span className="muted">—</span>}</dd>
    </>
  );
}

function ProfileEditor({ subscriber, onDone }: { subscriber: Subscriber; onDone: () => void }) {
  const api = useApi();
  const form = useForm<ProfileForm>({ defaultValues: toForm(subscriber) });
  const { dirtyFields, errors } = form.formState;
  const save = useMutation(andThen(saveProfileMutation(api, subscriber.subscriberId), onDone));
  const apiError = save.error instanceof ApiError ? save.error : null;
  const fieldErrors = apiError?.problem.errors ?? [];
  const allOnFields =
    fieldErrors.length > 0 && fieldErrors.every((e) => FORM_FIELDS.some((n) => e.path === n || e.path.startsWith(`${n}.`)));

  const submit = form.handleSubmit((values) => {
    const body: SubscriberInput = { subscriberId: subscriber.subscriberId };
    for (const { name } of TEXT_FIELDS) {
      if (dirtyFields[name]) body[name] = values[name].trim() || null;
    }
    if (dirtyFields.data) {
      const data = parseData(values.data);
      if (data instanceof Error) {
        form.setError("data", { message: data.message });
        return;
      }
      body.data = data;
    }
    save.mutate(body);
  });

  return (
    <form onSubmit={submit} noValidate className="sub-profile-form">
      <div className="sub-form-grid">
        {TEXT_FIELDS.map((f) => (
          <Field key={f.name} label={f.label} hint={"hint" in f ? f.hint : undefined} error={apiError?.fieldError(f.name)}>
            <Input type={"type" in f ? f.type : "text"} autoComplete="off" {...form.register(f.name)} />
          </Field>
        ))}
      </div>
      <Field
        label="Data (JSON)"
        hint="Custom fields for templates: {{ subscriber.data.plan }}"
        error={errors.data?.message ?? apiError?.fieldError("data")}
      >
        <Textarea className="code" rows={5} spellCheck={false} {...form.register("data")} />
      </Field>
      {save.error && !allOnFields ? <ProblemView error={save.error} /> : null}
      <div className="sub-actions">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save profile"}
        </Button>
        <Button type="button" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
