import { useState } from "react";
import type { FieldGroup } from "./field-options";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";

const OTHER = "\u0000other";

/** A select of the fields on offer, grouped, with "Other…" for a path typed by hand (`subscriber.data.plan`). */
export function FieldPicker({
  value,
  groups,
  onChange,
  id,
  ...aria
}: {
  value: string;
  groups: FieldGroup[];
  onChange: (field: string) => void;
  id?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  const offered = groups.some((g) => g.fields.includes(value));
  const [typing, setTyping] = useState(!offered && value !== "");
  const custom = typing || !offered;
  return (
    <span className="field-picker">
      <Select
        id={id}
        {...aria}
        value={custom ? OTHER : value}
        onChange={(e) => {
          const next = e.target.value;
          setTyping(next === OTHER);
          if (next !== OTHER) onChange(next);
        }}
      >
        {groups.map((g) => (
          <optgroup key={g.label} label={g.label}>
            {g.fields.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </optgroup>
        ))}
        <option value={OTHER}>Other…</option>
      </Select>
      {custom ? (
        <Input
          aria-label="Field path"
          value={value}
          placeholder="payload.order.total"
          spellCheck={false}
          onChange={(e) => onChange(e.target.value.trim())}
        />
      ) : null}
    </span>
  );
}
