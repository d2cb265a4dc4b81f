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
import { Button } from "../../ui/Button";
import { BranchFields } from "./BranchFields";
import { HttpFields } from "./HttpFields";
import { WaitFields } from "./WaitFields";
import { TriggerWorkflowFields, UpdateSubscriberFields } from "./FlowFields";
import { listAt, parent } from "./tree";

/** Where the step sits, in words: "Step 2" at the top, "Step 1 of path big in route" inside a branch. */
function placeName(steps: Step[], at: string): string {
  const { list, index } = parent(at);
  const inside = list.match(/^(.*)\.(paths\.(\d+)|default)\.steps$/);
  if (!inside) return `Step ${index + 1}`;
  const branch = parent(inside[1]!);
  const owner = listAt(steps, branch.list)?.[branch.index];
  const path = owner?.type === "branch" ? (inside[3] === undefined ? "Otherwise" : owner.paths[Number(inside[3])]?.id) : undefined;
  return `Step ${index + 1} of path ${path ?? "?"} in ${owner?.id ?? "?"}`;
}

/** One step's settings: its id and name, what its type needs, its condition and, for a channel, its template. */
export function StepPanel({
  step,
  at,
  steps,
  groups,
  onChange,
  onMove,
  onRemove,
}: {
  step: Step;
  at: string;
  steps: Step[];
  groups: FieldGroup[];
  onChange: (step: Step) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const path = at;
  const idError = useFieldError(`${path}.id`);
  const nameError = useFieldError(`${path}.name`);
  const own = useOwnError(path);
  const { list, index } = parent(at);
  const count = listAt(steps, list)?.length ?? 0;
  return (
    <Card className="step-panel" aria-label={`Step ${step.id}`} data-step-panel={step.id} data-at={at}>
      <div className="step-panel-head">
        <h2>
          {placeName(steps, at)}: <span className="step-type">{typeLabel(step.type)}</span>
        </h2>
        <span className="step-actions">
          <Button size="sm" className="panel-move-up" disabled={index === 0} onClick={() => onMove(index - 1)}>
            Move up
          </Button>
          <Button size="sm" className="panel-move-down" disabled={index >= count - 1} onClick={() => onMove(index + 1)}>
            Move down
          </Button>
          <Button size="sm" variant="danger" onClick={onRemove}>
            Remove step
          </Button>
        </span>
      </div>
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
      {step.type === "branch" ? <BranchFields step={step} path={path} groups={groups} onChange={onChange} /> : null}
      {step.type === "http" ? <HttpFields step={step} path={path} onChange={onChange} /> : null}
      {step.type === "wait" ? <WaitFields step={step} path={path} steps={steps} groups={groups} onChange={onChange} /> : null}
      {step.type === "trigger_workflow" ? <TriggerWorkflowFields step={step} path={path} onChange={onChange} /> : null}
      {step.type === "update_subscriber" ? <UpdateSubscriberFields step={step} path={path} onChange={onChange} /> : null}
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
