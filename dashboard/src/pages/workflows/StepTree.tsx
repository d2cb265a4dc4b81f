import { useState } from "react";
import { Button } from "../../ui/Button";
import { Card } from "../../ui/Card";
import { typeLabel } from "../../ui/labels";
import { Select } from "../../ui/Select";
import { STEP_TYPES, type Step, type StepType } from "./model";
import type { Mark } from "./tree-marks";
import { TreeCanvas } from "./TreeCanvas";
import { TreeList } from "./TreeList";
import type { TreeEdits } from "./use-tree-edits";
import { useNarrow } from "./use-narrow";

/**
 * The workflow's steps: a tree drawn on a canvas (an indented list on a narrow screen) where a
 * step is picked to edit, a `+` inserts one anywhere, and a step is moved or removed; below, a
 * step of any type is added at the end.
 */
export function StepTree({
  steps,
  selected,
  marks,
  onSelect,
  edits,
}: {
  steps: Step[];
  selected: string;
  marks: Map<string, Mark>;
  onSelect: (at: string) => void;
  edits: TreeEdits;
}) {
  const [type, setType] = useState<StepType>("email");
  const narrow = useNarrow();
  const actions = { selected, marks, onSelect, onInsert: edits.insert, onMove: edits.move, onRemove: edits.remove };
  return (
    <Card className="step-tree" aria-label="Steps">
      <h2>Steps</h2>
      {steps.length === 0 ? (
        <p className="muted">No steps yet: a workflow runs its steps in order; a branch splits it into paths.</p>
      ) : null}
      {narrow ? <TreeList steps={steps} {...actions} /> : <TreeCanvas steps={steps} {...actions} />}
      {edits.removed ? (
        <p className="removed-step small" role="status">
          Removed step <code>{edits.removed.step.id}</code>. <Button onClick={edits.undo}>Undo</Button>
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
        <Button onClick={() => edits.append(type)}>Add step</Button>
      </div>
    </Card>
  );
}
