import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { JsonTemplateField } from "./JsonTemplateField";
import type { Step } from "./model";
import { workflowPickQuery } from "./queries";
import { useFieldError } from "./save-errors";

type TriggerWorkflow = Extract<Step, { type: "trigger_workflow" }>;
type UpdateSubscriber = Extract<Step, { type: "update_subscriber" }>;

/** Another workflow to start for this recipient, picked from the environment's, and the payload it gets. */
export function TriggerWorkflowFields({ step, path, onChange }: { step: TriggerWorkflow; path: string; onChange: (step: Step) => void }) {
  const api = useApi();
  const workflows = useQuery(workflowPickQuery(api));
  const error = useFieldError(`${path}.workflow`);
  const keys = (workflows.data?.data ?? []).map((w) => w.key);
  return (
    <>
      <Field label="Workflow" error={error} hint="Started for the current recipient; chains deeper than 5 are refused">
        <Select value={step.workflow} onChange={(e) => onChange({ ...step, workflow: e.target.value })}>
          {step.workflow === "" ? <option value="">Pick a workflow</option> : null}
          {step.workflow && !keys.includes(step.workflow) ? <option value={step.workflow}>{step.workflow}</option> : null}
          {keys.map((key) => (
            <option key={key} value={key}>
              {key}
            </option>
          ))}
        </Select>
      </Field>
      <JsonTemplateField
        label="Payload"
        kind="object"
        path={`${path}.payload`}
        value={step.payload}
        onChange={(payload) => onChange({ ...step, payload: payload as TriggerWorkflow["payload"] })}
      />
    </>
  );
}

const TEXT_FIELDS = [
  { key: "firstName", label: "First name" },
  { key: "lastName", label: "Last name" },
  { key: "locale", label: "Locale" },
  { key: "timezone", label: "Time zone" },
] as const;

/** What the step changes on the recipient's profile (never an address); every value is Liquid. */
export function UpdateSubscriberFields({ step, path, onChange }: { step: UpdateSubscriber; path: string; onChange: (step: Step) => void }) {
  const setError = useFieldError(`${path}.set`);
  const set = (patch: Partial<UpdateSubscriber["set"]>) => {
    const next: Record<string, unknown> = { ...step.set, ...patch };
    for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
    onChange({ ...step, set: next as UpdateSubscriber["set"] });
  };
  return (
    <section className="update-fields" aria-label="Changes">
      <h4>Changes</h4>
      {setError ? (
        <p className="field-error" role="alert">
          {setError}
        </p>
      ) : null}
      <JsonTemplateField
        label="Data"
        kind="object"
        path={`${path}.set.data`}
        value={step.set.data}
        onChange={(data) => set({ data: data as UpdateSubscriber["set"]["data"] })}
      />
      <div className="row">
        {TEXT_FIELDS.map(({ key, label }) => (
          <TextField
            key={key}
            label={label}
            path={`${path}.set.${key}`}
            value={step.set[key]}
            onChange={(value) => set({ [key]: value })}
          />
        ))}
      </div>
    </section>
  );
}

function TextField({
  label,
  path,
  value,
  onChange,
}: {
  label: string;
  path: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}) {
  const error = useFieldError(path);
  return (
    <Field label={label} error={error} hint="Liquid; empty leaves it as it is">
      <Input value={value ?? ""} spellCheck={false} onChange={(e) => onChange(e.target.value || undefined)} />
    </Field>
  );
}
