import { Select } from "./Select";
import { Field } from "./Field";

/**
 * A filter chosen from a list: "All …" (the empty value) first, then each option. `labels` names
 * an option for a reader where its value is a code.
 */
export function SelectFilter({
  label,
  value,
  options,
  all,
  labels = {},
  id,
  onChange,
}: {
  label: string;
  value: string | undefined;
  options: readonly string[];
  all: string;
  labels?: Readonly<Record<string, string>>;
  id?: string;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <Field label={label}>
      <Select id={id} value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">{all}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {labels[o] ?? o}
          </option>
        ))}
      </Select>
    </Field>
  );
}
