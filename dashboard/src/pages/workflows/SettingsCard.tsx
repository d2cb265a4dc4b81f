import { Field } from "../../ui/Field";
import type { Draft } from "./model";
import { useFieldError } from "./save-errors";
import { ValueInput } from "./ValueInput";

const parseTags = (text: string) =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
const showTags = (tags: unknown) => (Array.isArray(tags) ? tags.join(", ") : "");

/** Name, key, description, tags and whether a failure of this workflow counts as critical. */
export function SettingsCard({
  draft,
  keyFixed,
  onChange,
}: {
  draft: Draft;
  /** Saved already: the key is the workflow's contract with every caller and every opt-out, so it no longer changes. */
  keyFixed: boolean;
  onChange: (patch: Partial<Draft>) => void;
}) {
  const errors = {
    name: useFieldError("name"),
    key: useFieldError("key"),
    description: useFieldError("description"),
    tags: useFieldError("tags"),
  };
  return (
    <section className="card settings" aria-label="Settings">
      <div className="row">
        <Field label="Name" error={errors.name}>
          <input value={draft.name} placeholder="Order shipped" onChange={(e) => onChange({ name: e.target.value })} />
        </Field>
        <Field
          label="Key"
          error={errors.key}
          hint={
            keyFixed
              ? "Fixed once saved: triggers and subscribers' opt-outs name it. Duplicate makes a copy under a new key."
              : "What triggers name: lowercase letters, digits, . - _ (fixed once saved)"
          }
        >
          <input
            value={draft.key}
            readOnly={keyFixed}
            placeholder="order-shipped"
            spellCheck={false}
            onChange={(e) => onChange({ key: e.target.value.trim() })}
          />
        </Field>
      </div>
      <Field label="Description" error={errors.description}>
        <input value={draft.description} onChange={(e) => onChange({ description: e.target.value })} />
      </Field>
      <div className="row">
        <Field label="Tags" error={errors.tags} hint="Separated by commas">
          <ValueInput value={draft.tags} parse={parseTags} show={showTags} onValue={(tags) => onChange({ tags: tags as string[] })} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={draft.critical} onChange={(e) => onChange({ critical: e.target.checked })} /> Critical (ignores
          opt-outs and quiet hours)
        </label>
      </div>
    </section>
  );
}
