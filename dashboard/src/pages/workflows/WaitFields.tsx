import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { ConditionBuilder } from "./ConditionBuilder";
import { DurationInput } from "./DurationInput";
import type { FieldGroup } from "./field-options";
import { isChannelStep, type Step } from "./model";
import { useFieldError, useOwnError } from "./save-errors";
import { stepsBefore } from "./tree";

type Wait = Extract<Step, { type: "wait" }>;
type Status = Extract<Wait["until"], { message: unknown }>["message"]["status"];
const STATUSES: { status: Status; label: string }[] = [
  { status: "delivered", label: "delivered" },
  { status: "seen", label: "seen" },
  { status: "read", label: "read" },
  { status: "opened", label: "opened (email)" },
  { status: "clicked", label: "clicked" },
];

/**
 * A wait: for a message of an earlier step (on every way to this one) to reach a status, or for a
 * signal sent to the trigger; then `steps.<id>.outcome` is matched or timed_out.
 */
export function WaitFields({
  step,
  path,
  steps,
  groups,
  onChange,
}: {
  step: Wait;
  path: string;
  steps: Step[];
  groups: FieldGroup[];
  onChange: (step: Step) => void;
}) {
  const watchable = stepsBefore(steps, path).filter(isChannelStep);
  const until = step.until;
  const own = useOwnError(`${path}.until`);
  const stepError = useFieldError(`${path}.until.message.step`);
  const signalError = useFieldError(`${path}.until.signal`);
  const timeoutError = useFieldError(`${path}.timeout`);
  return (
    <section className="wait-fields" aria-label="Wait for">
      <Field label="Wait for" error={own}>
        <Select
          value={"message" in until ? "message" : "signal"}
          onChange={(e) =>
            onChange({
              ...step,
              until: e.target.value === "message" ? { message: { step: watchable.at(-1)?.id ?? "", status: "seen" } } : { signal: "done" },
            })
          }
        >
          <option value="message">A message of an earlier step</option>
          <option value="signal">A signal sent to the trigger</option>
        </Select>
      </Field>
      {"message" in until ? (
        <div className="row">
          <Field
            label="Message of step"
            error={stepError}
            hint={watchable.length ? undefined : "No channel step comes before this one on its path."}
          >
            <Select
              value={until.message.step}
              onChange={(e) => onChange({ ...step, until: { message: { ...until.message, step: e.target.value } } })}
            >
              {until.message.step && !watchable.some((s) => s.id === until.message.step) ? (
                <option value={until.message.step}>{until.message.step} (not before this step)</option>
              ) : null}
              {!until.message.step ? <option value="">Pick a step</option> : null}
              {watchable.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.id}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Reaches">
            <Select
              value={until.message.status}
              onChange={(e) => onChange({ ...step, until: { message: { ...until.message, status: e.target.value as Status } } })}
            >
              {STATUSES.map((s) => (
                <option key={s.status} value={s.status}>
                  {s.label}
                </option>
              ))}
            </Select>
          </Field>
        </div>
      ) : (
        <>
          <Field label="Signal name" error={signalError} hint="POST /v1/trigger/{transactionId}/signals with this name wakes the wait">
            <Input
              value={until.signal}
              spellCheck={false}
              onChange={(e) => onChange({ ...step, until: { ...until, signal: e.target.value.trim() } })}
            />
          </Field>
          <ConditionBuilder
            value={until.if}
            path={`${path}.until.if`}
            groups={[{ label: "Signal", fields: ["signal.data."] }, ...groups]}
            onChange={(next) => onChange({ ...step, until: next ? { ...until, if: next } : { signal: until.signal } })}
          />
        </>
      )}
      <Field label="Timeout" error={timeoutError} hint="At most 30 days; then the wait ends as timed_out">
        <DurationInput value={step.timeout} onChange={(timeout) => onChange({ ...step, timeout })} />
      </Field>
    </section>
  );
}
