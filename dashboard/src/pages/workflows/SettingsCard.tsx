import { Field } from "../../ui/Field";
import type { Draft } from "./model";
import { useFieldError } from "./save-errors";
import { ValueInput } from "./ValueInput";
import { Checkbox, Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Card } from "../../ui/Card";

const parseTags = (text: string) =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
const showTags = (tags: unknown) => (Array.isArray(tags) ? tags.join(", ") : "");

/** "Order shipped – Zürich" → "order-shipped-zurich": a key the API accepts (lowercase, digits, . - _, at most 64). */
export const keyFromName = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 64)
    .replace(/-+$/, "");

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
    <Card className="settings" aria-label="Settings">
      <div className="row">
        <Field label="Name" error={errors.name}>
          <Input
            value={draft.name}
            placeholder="Order shipped"
            onChange={(e) =>
              // A new workflow's key follows its name until someone types a key of their own.
              onChange(
                !keyFixed && (draft.key === "" || draft.key === keyFromName(draft.name))
                  ? { name: e.target.value, key: keyFromName(e.target.value) }
                  : { name: e.target.value },
              )
            }
          />
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
          <Input
            value={draft.key}
            readOnly={keyFixed}
            placeholder="order-shipped"
            spellCheck={false}
            onChange={(e) => onChange({ key: e.target.value.trim() })}
          />
        </Field>
      </div>
      <Field label="Description" error={errors.description}>
        <Input value={draft.description} onChange={(e) => onChange({ description: e.target.value })} />
      </Field>
      <div className="row">
        <Field label="Tags" error={errors.tags} hint="Separated by commas">
          <ValueInput value={draft.tags} parse={parseTags} show={showTags} onValue={(tags) => onChange({ tags: tags as string[] })} />
        </Field>
        <label className="check">
          <Checkbox checked={draft.critical} onChange={(e) => onChange({ critical: e.target.checked })} /> Critical (ignores opt-outs and
          quiet hours)
        </label>
      </div>
      <Field
        label="One-click unsubscribe"
        hint={
          draft.critical
            ? "Critical workflows carry no unsubscribe link or header."
            : "What the List-Unsubscribe header and {{ unsubscribe_url }} of this workflow's emails turn off"
        }
      >
        <Select
          value={draft.critical ? "none" : draft.unsubscribe}
          disabled={draft.critical}
          onChange={(e) => onChange({ unsubscribe: e.target.value as Draft["unsubscribe"] })}
        >
          <option value="workflow">This workflow's emails</option>
          <option value="email">All email</option>
          <option value="none">Nothing (no link, no header)</option>
        </Select>
      </Field>
    </Card>
  );
}
