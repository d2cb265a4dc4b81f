import { useState } from "react";
import { moveItem, newStep, STEP_TYPES, type Step, type StepType } from "./model";
import { useFieldError } from "./save-errors";
import { typeLabel } from "../../ui/labels";
import { Button } from "../../ui/Button";
import { Select } from "../../ui/Select";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";

/**
 * Rows are keyed by place, so after a move the focused button would belong to another step: focus
 * follows the moved step instead (its other arrow when it reached an end), as a keyboard user expects.
 */
function keepFocusOnMove(to: number, direction: "up" | "down") {
  requestAnimationFrame(() => {
    const row = document.querySelectorAll<HTMLElement>(".step-list li")[to];
    const buttons = row ? [...row.querySelectorAll<HTMLButtonElement>(".step-actions button")] : [];
    const [up, down] = buttons;
    const wanted = direction === "up" ? up : down;
    (wanted && !wanted.disabled ? wanted : direction === "up" ? down : up)?.focus();
  });
}

/** The workflow's steps in order: pick one to edit, move it, remove it, or add a step of a type. */
export function StepList({
  steps,
  selected,
  onSelect,
  onChange,
}: {
  steps: Step[];
  selected: number;
  onSelect: (index: number) => void;
  onChange: (steps: Step[], select: number) => void;
}) {
  const [type, setType] = useState<StepType>("email");
  // The last step removed, so a slip of the ✕ can be taken back (until another step is removed).
  const [removed, setRemoved] = useState<{ step: Step; index: number } | null>(null);
  return (
    <Card className="step-list" aria-label="Steps">
      <h2>Steps</h2>
      {steps.length === 0 ? <p className="muted">No steps yet: a workflow runs its steps in order.</p> : null}
      <ol>
        {steps.map((step, i) => (
          <StepRow
            // Rows keep no state, and two steps may share an id while one is being typed.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            key={i}
            step={step}
            index={i}
            last={i === steps.length - 1}
            selected={i === selected}
            onSelect={() => onSelect(i)}
            onMove={(to) => {
              onChange(moveItem(steps, i, to), to);
              keepFocusOnMove(to, to < i ? "up" : "down");
            }}
            onRemove={() => {
              setRemoved({ step, index: i });
              onChange(
                steps.filter((_, j) => j !== i),
                i < selected ? selected - 1 : Math.min(selected, steps.length - 2),
              );
            }}
          />
        ))}
      </ol>
      {removed ? (
        <p className="removed-step small" role="status">
          Removed step <code>{removed.step.id}</code>.{" "}
          <Button
            type="button"
            onClick={() => {
              const at = Math.min(removed.index, steps.length);
              onChange([...steps.slice(0, at), removed.step, ...steps.slice(at)], at);
              setRemoved(null);
            }}
          >
            Undo
          </Button>
        </p>
      ) : null}
      <div className="add-step">
        <Select aria-label="Step type" value={type} onChange={(e) => setType(e.target.value as StepType)}>
          {STEP_TYPES.map((t) => (
            <option key={t} value={t}>
              {typeLabel(t)}
            </option>
          ))}
        </Select>
        <Button
          type="button"
          onClick={() =>
            onChange(
              [
                ...steps,
                newStep(
                  type,
                  steps.map((s) => s.id),
                ),
              ],
              steps.length,
            )
          }
        >
          Add step
        </Button>
      </div>
    </Card>
  );
}

function StepRow({
  step,
  index,
  last,
  selected,
  onSelect,
  onMove,
  onRemove,
}: {
  step: Step;
  index: number;
  last: boolean;
  selected: boolean;
  onSelect: () => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const error = useFieldError(`steps.${index}`);
  return (
    <li className={selected ? "selected" : undefined} data-step-row={step.id}>
      <Button type="button" className="step-select" aria-current={selected ? "step" : undefined} onClick={onSelect}>
        <span className="step-type">{typeLabel(step.type)}</span> <code>{step.id}</code>
        {step.if ? <Badge tone="info">if</Badge> : null}
        {error ? <Badge tone="bad">error</Badge> : null}
      </Button>
      <span className="step-actions">
        <Button type="button" aria-label={`Move ${step.id} up`} disabled={index === 0} onClick={() => onMove(index - 1)}>
          ↑
        </Button>
        <Button type="button" aria-label={`Move ${step.id} down`} disabled={last} onClick={() => onMove(index + 1)}>
          ↓
        </Button>
        <Button type="button" variant="danger" aria-label={`Remove ${step.id}`} onClick={onRemove}>
          ✕
        </Button>
      </span>
    </li>
  );
}
