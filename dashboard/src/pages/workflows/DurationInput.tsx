import { joinDuration, splitDuration, UNITS, type Unit } from "./duration";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";

/** An ISO 8601 duration as an amount and a unit; one with several parts (`P1DT2H`) is edited as text. */
export function DurationInput({
  value,
  onChange,
  id,
  ...aria
}: {
  value: string;
  onChange: (iso: string) => void;
  id?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  const split = splitDuration(value);
  if (!split) {
    return (
      <Input
        id={id}
        {...aria}
        value={value}
        placeholder="PT15M"
        spellCheck={false}
        onChange={(e) => onChange(e.target.value.toUpperCase())}
      />
    );
  }
  return (
    <span className="duration">
      <Input
        id={id}
        {...aria}
        type="number"
        min={0}
        value={split.amount}
        onChange={(e) => onChange(joinDuration(Number(e.target.value), split.unit))}
      />
      <Select aria-label="Unit" value={split.unit} onChange={(e) => onChange(joinDuration(split.amount, e.target.value as Unit))}>
        {UNITS.map((u) => (
          <option key={u.unit} value={u.unit}>
            {u.label}
          </option>
        ))}
      </Select>
    </span>
  );
}
