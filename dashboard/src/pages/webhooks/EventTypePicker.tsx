import { useId } from "react";
import { EVENT_TYPES } from "../../../../src/contract/event-types";
import type { EventType } from "./queries";
import { Checkbox, Radio } from "../../ui/Input";

/** The event types by their family (`message.sent` → message), in the order the API lists them. */
const FAMILIES = EVENT_TYPES.reduce<Record<string, EventType[]>>((all, type) => {
  const family = type.split(".")[0] ?? type;
  all[family] = [...(all[family] ?? []), type];
  return all;
}, {});

/**
 * Which events an endpoint takes: every type (null, which also takes the types added later), or
 * the ones ticked.
 */
export function EventTypePicker({
  value,
  onChange,
  error,
}: {
  value: EventType[] | null;
  onChange: (value: EventType[] | null) => void;
  error?: string;
}) {
  const scope = useId();
  const chosen = new Set(value ?? []);
  const toggle = (type: EventType, on: boolean) => {
    const next = EVENT_TYPES.filter((t) => (t === type ? on : chosen.has(t)));
    onChange(next);
  };
  return (
    <fieldset className="event-types" aria-invalid={error ? true : undefined}>
      <legend>Events</legend>
      <label>
        <Radio name={scope} checked={value === null} onChange={() => onChange(null)} /> Every event, including types added later
      </label>
      <label>
        <Radio name={scope} checked={value !== null} onChange={() => onChange([...chosen])} /> Only these:
      </label>
      {value !== null ? (
        <div className="event-families">
          {Object.entries(FAMILIES).map(([family, types]) => (
            <fieldset key={family}>
              <legend className="small">{family}</legend>
              {types.map((type) => (
                <label key={type}>
                  <Checkbox checked={chosen.has(type)} onChange={(e) => toggle(type, e.target.checked)} /> <code>{type}</code>
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      ) : null}
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}
