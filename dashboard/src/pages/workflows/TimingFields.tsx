import { Field } from "../../ui/Field";
import { DurationInput } from "./DurationInput";
import type { Step } from "./model";
import { useFieldError, useOwnError } from "./save-errors";
import { Checkbox, Input } from "../../ui/Input";
import { Select } from "../../ui/Select";

type Delay = Extract<Step, { type: "delay" }>;
type Digest = Extract<Step, { type: "digest" }>;
type Throttle = Extract<Step, { type: "throttle" }>;
type Day = "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
const DAYS: Day[] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/** The settings of a step that sends nothing: how long a delay waits, what a digest gathers, what a throttle lets through. */
export function TimingFields({ step, path, onChange }: { step: Delay | Digest | Throttle; path: string; onChange: (step: Step) => void }) {
  if (step.type === "delay") return <DelayFields step={step} path={path} onChange={onChange} />;
  if (step.type === "digest") return <DigestFields step={step} path={path} onChange={onChange} />;
  return <ThrottleFields step={step} path={path} onChange={onChange} />;
}

function DelayFields({ step, path, onChange }: { step: Delay; path: string; onChange: (step: Step) => void }) {
  const mode = step.for !== undefined ? "for" : typeof step.until === "object" ? "local" : "until";
  const forError = useFieldError(`${path}.for`);
  const untilError = useFieldError(`${path}.until`);
  const own = useOwnError(path);
  const base = { id: step.id, type: step.type, name: step.name, if: step.if } as const;
  const local = typeof step.until === "object" ? step.until : { localTime: "09:00" };
  return (
    <>
      <Field label="Wait" error={own}>
        <Select
          value={mode}
          onChange={(e) => {
            const next = e.target.value;
            if (next === "for") onChange({ ...base, for: "PT15M" });
            else if (next === "local") onChange({ ...base, until: { localTime: "09:00" } });
            else onChange({ ...base, until: "{{ payload.sendAt }}" });
          }}
        >
          <option value="for">For a while</option>
          <option value="until">Until a date and time</option>
          <option value="local">Until a time of day (subscriber's time zone)</option>
        </Select>
      </Field>
      {mode === "for" ? (
        <Field label="Duration" error={forError}>
          <DurationInput value={step.for ?? ""} onChange={(iso) => onChange({ ...base, for: iso })} />
        </Field>
      ) : mode === "until" ? (
        <Field label="Until" error={untilError} hint="An ISO 8601 date-time; Liquid, e.g. {{ payload.sendAt }}">
          <Input value={typeof step.until === "string" ? step.until : ""} onChange={(e) => onChange({ ...base, until: e.target.value })} />
        </Field>
      ) : (
        <>
          <Field label="Time of day" error={untilError}>
            <Input
              type="time"
              value={local.localTime}
              onChange={(e) => onChange({ ...base, until: { ...local, localTime: e.target.value } })}
            />
          </Field>
          <fieldset className="days">
            <legend>On (any day when none is ticked)</legend>
            {DAYS.map((day) => (
              <label key={day}>
                <Checkbox
                  checked={local.days?.includes(day) ?? false}
                  onChange={(e) => {
                    const days = DAYS.filter((d) => (d === day ? e.target.checked : local.days?.includes(d)));
                    onChange({ ...base, until: { localTime: local.localTime, ...(days.length ? { days } : {}) } });
                  }}
                />{" "}
                {day}
              </label>
            ))}
          </fieldset>
        </>
      )}
    </>
  );
}

function DigestFields({ step, path, onChange }: { step: Digest; path: string; onChange: (step: Step) => void }) {
  const windowError = useFieldError(`${path}.window`);
  const keyError = useFieldError(`${path}.key`);
  return (
    <>
      <Field label="Window" error={windowError} hint="Events within it go out as one">
        <DurationInput value={step.window} onChange={(window) => onChange({ ...step, window })} />
      </Field>
      <Field label="Mode">
        <Select value={step.mode} onChange={(e) => onChange({ ...step, mode: e.target.value as Digest["mode"] })}>
          <option value="fixed">Fixed: collect from the first event until the window closes</option>
          <option value="lookback">Look-back: send the first at once, collect those that follow</option>
        </Select>
      </Field>
      <KeyField value={step.key} error={keyError} onChange={(key) => onChange({ ...step, key })} />
    </>
  );
}

function ThrottleFields({ step, path, onChange }: { step: Throttle; path: string; onChange: (step: Step) => void }) {
  const windowError = useFieldError(`${path}.window`);
  const limitError = useFieldError(`${path}.limit`);
  const keyError = useFieldError(`${path}.key`);
  return (
    <>
      <Field label="At most" error={limitError} hint="Runs per subscriber (and group) within the window; the rest are skipped as throttled">
        <Input
          type="number"
          min={1}
          value={step.limit}
          onChange={(e) => onChange({ ...step, limit: Math.trunc(Number(e.target.value)) })}
        />
      </Field>
      <Field label="Window" error={windowError}>
        <DurationInput value={step.window} onChange={(window) => onChange({ ...step, window })} />
      </Field>
      <KeyField value={step.key} error={keyError} onChange={(key) => onChange({ ...step, key })} />
    </>
  );
}

function KeyField({ value, error, onChange }: { value: string | undefined; error?: string; onChange: (key: string | undefined) => void }) {
  return (
    <Field label="Group by" error={error} hint="Liquid, e.g. {{ payload.threadId }}; empty groups by subscriber only">
      <Input value={value ?? ""} spellCheck={false} onChange={(e) => onChange(e.target.value || undefined)} />
    </Field>
  );
}
