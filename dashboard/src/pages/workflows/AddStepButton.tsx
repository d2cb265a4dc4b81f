import { useState } from "react";
import { Button } from "../../ui/Button";
import { Dialog } from "../../ui/Dialog";
import { typeLabel } from "../../ui/labels";
import { STEP_TYPES, type StepType } from "./model";

/** A `+` that asks which kind of step to insert at its place in the tree. */
export function AddStepButton({ label, onPick }: { label: string; onPick: (type: StepType) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="sm" className="add-here nodrag" aria-label={label} title={label} onClick={() => setOpen(true)}>
        +
      </Button>
      <Dialog open={open} title={label} onClose={() => setOpen(false)} className="add-step-dialog">
        <ul className="step-type-choices">
          {STEP_TYPES.map((type) => (
            <li key={type}>
              <Button
                className="step-type-choice"
                onClick={() => {
                  setOpen(false);
                  onPick(type);
                }}
              >
                {typeLabel(type)}
              </Button>
            </li>
          ))}
        </ul>
        <Button variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </Dialog>
    </>
  );
}
