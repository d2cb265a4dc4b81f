import { Badge } from "../../ui/Badge";
import { Button } from "../../ui/Button";
import { classNames } from "../../ui/class-names";
import { typeLabel } from "../../ui/labels";
import { AddStepButton } from "./AddStepButton";
import { describeCondition } from "./describe";
import type { Step } from "./model";
import { useFieldError } from "./save-errors";
import { branchLists, DEFAULT_PATH } from "./tree";
import type { TreeActions } from "./TreeCanvas";

/**
 * The tree as an indented list, for a narrow screen: each branch's paths one under the other,
 * each headed by its condition, with the same `+` buttons as the canvas and move and remove
 * buttons on each row.
 */
export function TreeList({
  steps,
  list = "steps",
  name = "the workflow",
  ...actions
}: TreeActions & { steps: Step[]; list?: string; name?: string }) {
  return (
    <ol className="tree-list">
      <li className="tree-list-add">
        <AddStepButton
          label={steps.length === 0 ? `Add a step to ${name}` : `Add a step at the start of ${name}`}
          onPick={(type) => actions.onInsert(list, 0, type)}
        />
      </li>
      {steps.map((step, i) => {
        const at = `${list}.${i}`;
        return (
          // Rows keep no state, and two steps may share an id while one is being typed.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <li key={i}>
            <Row step={step} at={at} last={i === steps.length - 1} index={i} {...actions} />
            {step.type === "branch"
              ? branchLists(step, at).map((l) => {
                  const mark = actions.marks.get(at);
                  const chosen = mark ? mark.path === l.path : undefined;
                  const path = step.paths.find((p) => p.id === l.path);
                  return (
                    <section
                      key={l.list}
                      className={classNames("tree-list-path", chosen && "chosen")}
                      data-path={l.path}
                      data-chosen={chosen === undefined ? undefined : String(chosen)}
                      aria-label={`Path ${l.name} of ${step.id}`}
                    >
                      <p className="small">
                        <strong>{l.path === DEFAULT_PATH ? "Otherwise" : l.name}</strong>{" "}
                        <span className="muted">{path ? `if ${describeCondition(path.if)}` : "when no path's condition holds"}</span>
                        {chosen ? <Badge tone="ok">sample goes here</Badge> : null}
                      </p>
                      <TreeList steps={l.steps} list={l.list} name={`path ${l.name} of ${step.id}`} {...actions} />
                    </section>
                  );
                })
              : null}
            <div className="tree-list-add">
              <AddStepButton label={`Add a step after ${step.id}`} onPick={(type) => actions.onInsert(list, i + 1, type)} />
            </div>
          </li>
        );
      })}
    </ol>
  );
}

function Row({
  step,
  at,
  index,
  last,
  selected,
  marks,
  onSelect,
  onMove,
  onRemove,
}: TreeActions & { step: Step; at: string; index: number; last: boolean }) {
  const error = useFieldError(at);
  const mark = marks.get(at);
  return (
    <div
      className={classNames("tree-row", at === selected && "selected", mark && (mark.onPath ? "on-path" : "off-path"))}
      data-at={at}
      data-step-row={step.id}
      data-on-path={mark ? String(mark.onPath) : undefined}
    >
      <StepSelect step={step} at={at} selected={selected} error={Boolean(error)} onSelect={onSelect} />
      <StepActions step={step} at={at} index={index} last={last} onMove={onMove} onRemove={onRemove} />
    </div>
  );
}

/** A step's move and remove buttons, on its row of the list and its node on the canvas. */
export function StepActions({
  step,
  at,
  index,
  last,
  onMove,
  onRemove,
}: {
  step: Step;
  at: string;
  index: number;
  last: boolean;
  onMove: (at: string, to: number) => void;
  onRemove: (at: string) => void;
}) {
  return (
    <span className="step-actions nodrag">
      <Button aria-label={`Move ${step.id} up`} disabled={index === 0} onClick={() => onMove(at, index - 1)}>
        ↑
      </Button>
      <Button aria-label={`Move ${step.id} down`} disabled={last} onClick={() => onMove(at, index + 1)}>
        ↓
      </Button>
      <Button variant="danger" aria-label={`Remove ${step.id}`} onClick={() => onRemove(at)}>
        ✕
      </Button>
    </span>
  );
}

/** A step's own button, the same on the canvas and in the list: its type, id, and whether it has a condition or an error. */
export function StepSelect({
  step,
  at,
  selected,
  error,
  onSelect,
}: {
  step: Step;
  at: string;
  selected: string | null;
  error: boolean;
  onSelect: (at: string) => void;
}) {
  return (
    <Button className="step-select" aria-current={at === selected ? "step" : undefined} onClick={() => onSelect(at)}>
      <span className="step-type">{typeLabel(step.type)}</span> <code>{step.id}</code>
      {step.if ? <Badge tone="info">if</Badge> : null}
      {error ? <Badge tone="bad">error</Badge> : null}
    </Button>
  );
}
