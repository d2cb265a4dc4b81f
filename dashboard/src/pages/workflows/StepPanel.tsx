import { Field } from "../../ui/Field";
import { ConditionBuilder } from "./ConditionBuilder";
import type { FieldGroup } from "./field-options";
import { isChannelStep, type Step } from "./model";
import { useFieldError, useOwnError } from "./save-errors";
import { LayoutPicker } from "./LayoutPicker";
import { TemplateEditor } from "./TemplateEditor";
import { TimingFields } from "./TimingFields";
import { typeLabel } from "../../ui/labels";
import { Checkbox, Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** One step's settings: its id and name, what its type needs, its condition and, for a channel, its template. */
export function StepPanel({
  step,
  index,
  groups,
  onChange,
}: {
  step: Step;
  index: number;
  groups: FieldGroup[];
  onChange: (step: Step) => void;
}) {
  const path = `steps.${index}`;
  const idError = useFieldError(`${path}.id`);
  const nameError = useFieldError(`${path}.name`);
  const own = useOwnError(path);
  return (
    <Card className="step-panel" aria-label={`Step ${step.id}`} data-step-panel={step.id}>
      <h2>
        Step {index + 1}: <span className="step-type">{typeLabel(step.type)}</span>
      </h2>
      {own ? (
        <p className="field-error" role="alert">
          {own}
        </p>
      ) : null}
      <div className="row">
        <Field label="Step id" error={idError} hint="Later conditions read it as steps.<id>.status">
          <Input value={step.id} spellCheck={false} onChange={(e) => onChange({ ...step, id: e.target.value.trim() })} />
        </Field>
        <Field label="Step name" error={nameError}>
          <Input value={step.name ?? ""} onChange={(e) => onChange({ ...step, name: e.target.value || undefined })} />
        </Field>
      </div>
      {step.type === "delay" || step.type === "digest" || step.type === "throttle" ? (
        <TimingFields step={step} path={path} onChange={onChange} />
      ) : null}
      <ConditionBuilder value={step.if} path={`${path}.if`} groups={groups} onChange={(next) => onChange({ ...step, if: next })} />
      {step.type === "email" ? <LayoutPicker step={step} path={path} onChange={onChange} /> : null}
      {isChannelStep(step) ? <TemplateEditor step={step} path={path} onChange={onChange} /> : null}
      {step.type === "email" ? (
        <fieldset className="tracking">
          <legend>Tracking</legend>
          {(["opens", "clicks"] as const).map((what) => (
            <label key={what}>
              <Checkbox
                checked={step.tracking?.[what] ?? false}
                onChange={(e) =>
                  onChange({ ...step, tracking: { opens: false, clicks: false, ...step.tracking, [what]: e.target.checked } })
                }
              />{" "}
              {what}
            </label>
          ))}
        </fieldset>
      ) : null}
    </Card>
  );
}
