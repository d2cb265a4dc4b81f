import type { ReactElement } from "react";
import { Field } from "../../ui/Field";
import type { CredentialField, FormValues } from "./credential-fields";
import { Checkbox, Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Textarea } from "../../ui/Textarea";

interface Props {
  fields: CredentialField[];
  values: FormValues;
  onChange: (name: string, value: string | boolean) => void;
  /** The integration's credentials (secrets masked) when editing: which fields hold a stored value. */
  stored?: Record<string, unknown>;
  cleared: ReadonlySet<string>;
  onClear: (name: string, clear: boolean) => void;
  errorOf: (name: string) => string | undefined;
}

/** The inputs for one provider's credentials, generated from its JSON Schema. */
export function CredentialFields({ fields, values, onChange, stored, cleared, onClear, errorOf }: Props) {
  if (fields.length === 0) return <p className="muted">This provider needs no credentials.</p>;
  return (
    <>
      {fields.map((field) => {
        const has = stored !== undefined && field.name in stored;
        const isCleared = cleared.has(field.name);
        // Only a masked value is kept unseen; a setting shown in clear is in its input.
        const keeps = has && (field.kind === "json" || (field.kind === "text" && field.secret));
        const hint = [field.description, keeps && !isCleared ? "Stored: leave empty to keep it." : null].filter(Boolean).join(" ");
        const label = `${field.label}${field.required ? "" : " (optional)"}`;
        const value = values[field.name];
        const text = typeof value === "string" ? value : "";
        const common = {
          name: field.name,
          "aria-required": field.required && !has ? true : undefined,
          disabled: isCleared,
        };
        let control: ReactElement<Record<string, unknown>>;
        switch (field.kind) {
          case "boolean":
            control = <Checkbox {...common} checked={value === true} onChange={(e) => onChange(field.name, e.target.checked)} />;
            break;
          case "enum":
            control = (
              <Select {...common} value={text} onChange={(e) => onChange(field.name, e.target.value)}>
                <option value="">{keeps ? "Unchanged" : "Not set"}</option>
                {field.options.map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </Select>
            );
            break;
          case "number":
            control = (
              <Input
                type="number"
                inputMode="numeric"
                {...common}
                step={field.integer ? 1 : "any"}
                min={field.minimum}
                max={field.maximum}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
              />
            );
            break;
          default: {
            const multiline = field.kind === "json" || field.multiline;
            const placeholder = keeps ? "•••••••• (stored)" : undefined;
            control = multiline ? (
              <Textarea
                className="code"
                rows={4}
                spellCheck={false}
                autoComplete="off"
                {...common}
                placeholder={placeholder}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
              />
            ) : (
              <Input
                type={field.kind === "text" && field.secret ? "password" : "text"}
                autoComplete={field.kind === "text" && field.secret ? "new-password" : "off"}
                spellCheck={false}
                {...common}
                placeholder={placeholder}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
              />
            );
          }
        }
        return (
          <div key={field.name} className={`credential${field.kind === "boolean" ? " credential-flag" : ""}`}>
            <Field label={label} hint={hint || undefined} error={errorOf(field.name)}>
              {control}
            </Field>
            {has && !field.required ? (
              <label className="credential-clear small">
                <Checkbox checked={isCleared} onChange={(e) => onClear(field.name, e.target.checked)} /> Remove the stored{" "}
                {field.label.toLowerCase()}
              </label>
            ) : null}
          </div>
        );
      })}
    </>
  );
}
