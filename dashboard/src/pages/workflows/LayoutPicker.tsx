import { useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { Field } from "../../ui/Field";
import { Select } from "../../ui/Select";
import { layoutPickQuery } from "../layouts/queries";
import type { Step } from "./model";
import { useFieldError } from "./save-errors";

type EmailStep = Extract<Step, { type: "email" }>;

// A select's values: the two choices that are not a layout's key can never be one (keys have no spaces).
const DEFAULT = "(default)";
const NONE = "(none)";

/**
 * An email step's frame: the environment's default (no `layout` in the step), none (`layout: null`)
 * or a named layout. The draft preview sends the step as it is, so the choice reaches it too.
 */
export function LayoutPicker({ step, path, onChange }: { step: EmailStep; path: string; onChange: (step: Step) => void }) {
  const api = useApi();
  const layouts = useQuery(layoutPickQuery(api));
  const error = useFieldError(`${path}.layout`);
  const current = step.layout === undefined ? DEFAULT : step.layout === null ? NONE : step.layout;
  const fallback = layouts.data?.find((l) => l.isDefault);
  // A key the list does not hold (deleted, or past the first hundred) is still shown as chosen.
  const known = layouts.data?.some((l) => l.key === step.layout) ?? false;
  const choose = (value: string) => {
    const { layout: _, ...rest } = step;
    onChange(value === DEFAULT ? rest : { ...rest, layout: value === NONE ? null : value });
  };
  return (
    <Field label="Layout" hint="The frame around this email's HTML; manage them under Layouts." error={error}>
      <Select value={current} onChange={(e) => choose(e.target.value)}>
        <option value={DEFAULT}>Environment default{fallback ? ` (${fallback.name})` : " (none set)"}</option>
        <option value={NONE}>No layout</option>
        {layouts.data?.map((l) => (
          <option key={l.key} value={l.key}>
            {l.name} ({l.key})
          </option>
        ))}
        {typeof step.layout === "string" && !known && layouts.data ? <option value={step.layout}>{step.layout} (not found)</option> : null}
      </Select>
    </Field>
  );
}
