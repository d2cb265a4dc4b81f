import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { Checkbox, Input } from "../../ui/Input";
import { ConditionBuilder } from "./ConditionBuilder";
import type { FieldGroup } from "./field-options";
import type { Condition, Step } from "./model";
import { useFieldError, useOwnError } from "./save-errors";
import { type BranchPath, type BranchStep, freeId, takenIds } from "./tree";

/** The API's limit on a branch's paths (besides its default). */
const MAX_PATHS = 10;

/** A path always has a condition: removing the last rule starts it over with one to fill in. */
const startCondition = (groups: FieldGroup[]): Condition => ({ all: [{ field: groups[0]?.fields[0] ?? "payload.", op: "exists" }] });

/** A branch's paths, tried in order (each a name and a condition), and whether a default catches the rest. */
export function BranchFields({
  step,
  path,
  groups,
  onChange,
}: {
  step: BranchStep;
  path: string;
  groups: FieldGroup[];
  onChange: (step: Step) => void;
}) {
  const own = useOwnError(`${path}.paths`);
  const setPaths = (paths: BranchPath[]) => onChange({ ...step, paths });
  const setPath = (i: number, next: BranchPath) => setPaths(step.paths.map((p, j) => (j === i ? next : p)));
  const move = (i: number, to: number) => {
    const next = [...step.paths];
    const [item] = next.splice(i, 1);
    if (item) next.splice(to, 0, item);
    setPaths(next);
  };
  const defaultCount = step.default?.steps.length ?? 0;
  return (
    <section className="branch-fields" aria-label="Paths">
      <h4>Paths</h4>
      <p className="muted small">Tried in order: the first whose condition holds runs; else the default; else nothing.</p>
      {own ? (
        <p className="field-error" role="alert">
          {own}
        </p>
      ) : null}
      <ol className="branch-paths">
        {step.paths.map((p, i) => (
          // Paths are edited in place; their order is their identity here.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <li key={i} className="branch-path" data-path-panel={p.id}>
            <PathFields
              path={p}
              at={`${path}.paths.${i}`}
              groups={groups}
              onChange={(next) => setPath(i, next)}
              onCondition={(next) => setPath(i, { ...p, if: next ?? startCondition(groups) })}
            />
            <div className="path-actions">
              <Button size="sm" aria-label={`Move path ${p.id} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                ↑
              </Button>
              <Button size="sm" aria-label={`Move path ${p.id} down`} disabled={i === step.paths.length - 1} onClick={() => move(i, i + 1)}>
                ↓
              </Button>
              <Button
                size="sm"
                variant="danger"
                disabled={step.paths.length === 1}
                onClick={() => setPaths(step.paths.filter((_, j) => j !== i))}
              >
                Remove path {p.id}
                {p.steps.length ? ` and its ${p.steps.length} step${p.steps.length === 1 ? "" : "s"}` : ""}
              </Button>
            </div>
          </li>
        ))}
      </ol>
      <Button
        disabled={step.paths.length >= MAX_PATHS}
        onClick={() =>
          setPaths([
            ...step.paths,
            {
              id: freeId(`${step.id}-${String.fromCharCode(97 + (step.paths.length % 26))}`, takenIds([step])),
              if: startCondition(groups),
              steps: [],
            },
          ])
        }
      >
        Add path
      </Button>
      <label className="inline">
        <Checkbox
          checked={step.default !== undefined}
          onChange={(e) => {
            if (e.target.checked) onChange({ ...step, default: { steps: [] } });
            else {
              const { default: _dropped, ...rest } = step;
              onChange(rest);
            }
          }}
        />
        A default path when no condition holds
        {step.default && defaultCount ? <span className="muted small"> (turning it off removes its {defaultCount} steps)</span> : null}
      </label>
    </section>
  );
}

function PathFields({
  path,
  at,
  groups,
  onChange,
  onCondition,
}: {
  path: BranchPath;
  at: string;
  groups: FieldGroup[];
  onChange: (path: BranchPath) => void;
  onCondition: (condition: Condition | undefined) => void;
}) {
  const idError = useFieldError(`${at}.id`);
  const nameError = useFieldError(`${at}.name`);
  return (
    <>
      <div className="row">
        <Field label="Path id" error={idError} hint="Later conditions read it as steps.<branch>.path">
          <Input value={path.id} spellCheck={false} onChange={(e) => onChange({ ...path, id: e.target.value.trim() })} />
        </Field>
        <Field label="Path name" error={nameError}>
          <Input value={path.name ?? ""} onChange={(e) => onChange({ ...path, name: e.target.value || undefined })} />
        </Field>
      </div>
      <ConditionBuilder value={path.if} path={`${at}.if`} groups={groups} onChange={onCondition} />
    </>
  );
}
