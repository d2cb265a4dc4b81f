import { Field } from "../../ui/Field";
import type { FieldGroup } from "./field-options";
import { FieldPicker } from "./FieldPicker";
import type { Condition, Leaf, Op } from "./model";
import { OPS, opSpec, parseList, parseScalar, showList, showScalar, valueFor } from "./ops";
import { useFieldError, useOwnError } from "./save-errors";
import { ValueInput } from "./ValueInput";
import { Button } from "../../ui/Button";
import { Select } from "../../ui/Select";

interface NodeProps {
  node: Condition;
  path: string;
  groups: FieldGroup[];
  onChange: (node: Condition) => void;
  onRemove: () => void;
}

const newLeaf = (groups: FieldGroup[]): Leaf => ({ field: groups[0]?.fields[0] ?? "payload.", op: "eq", value: "" });

/** A step's `if`: absent means the step always runs; else nested all / any / not groups of rules. */
export function ConditionBuilder({
  value,
  path,
  groups,
  onChange,
}: {
  value: Condition | undefined;
  path: string;
  groups: FieldGroup[];
  onChange: (value: Condition | undefined) => void;
}) {
  const error = useOwnError(path);
  return (
    <section className="condition-builder" aria-label="Condition">
      <h4>Condition</h4>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {value ? (
        <ConditionNode node={value} path={path} groups={groups} onChange={onChange} onRemove={() => onChange(undefined)} />
      ) : (
        <p className="muted small">
          Always runs.{" "}
          <Button type="button" onClick={() => onChange({ all: [newLeaf(groups)] })}>
            Add a condition
          </Button>
        </p>
      )}
    </section>
  );
}

function ConditionNode(props: NodeProps) {
  const { node } = props;
  if ("all" in node || "any" in node) return <GroupNode {...props} />;
  if ("not" in node) return <NotNode {...props} node={node} />;
  return <LeafNode {...props} node={node} />;
}

function GroupNode({ node, path, groups, onChange, onRemove }: NodeProps) {
  const mode = "all" in node ? "all" : "any";
  const children = "all" in node ? node.all : "any" in node ? node.any : [];
  const set = (items: Condition[]) => {
    if (items.length === 0) onRemove();
    else onChange(mode === "all" ? { all: items } : { any: items });
  };
  return (
    <fieldset className="cond-group" data-mode={mode}>
      <legend>
        <Select
          aria-label="Match"
          value={mode}
          onChange={(e) => onChange(e.target.value === "all" ? { all: children } : { any: children })}
        >
          <option value="all">All of these</option>
          <option value="any">Any of these</option>
        </Select>
      </legend>
      <ol className="cond-children">
        {children.map((child, i) => (
          // Children have no identity but their place; a remove re-renders the rest, which is cheap here.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <li key={i}>
            <ConditionNode
              node={child}
              path={`${path}.${mode}.${i}`}
              groups={groups}
              onChange={(next) => set(children.map((c, j) => (j === i ? next : c)))}
              onRemove={() => set(children.filter((_, j) => j !== i))}
            />
          </li>
        ))}
      </ol>
      <div className="cond-actions">
        <Button type="button" onClick={() => set([...children, newLeaf(groups)])}>
          + Rule
        </Button>
        <Button type="button" onClick={() => set([...children, { any: [newLeaf(groups)] }])}>
          + Group
        </Button>
        <Button type="button" onClick={() => onChange({ not: node })}>
          Negate group
        </Button>
        <Button type="button" variant="danger" onClick={onRemove}>
          Remove group
        </Button>
      </div>
    </fieldset>
  );
}

function NotNode({ node, path, groups, onChange, onRemove }: NodeProps & { node: { not: Condition } }) {
  return (
    <div className="cond-not">
      <div className="cond-not-head">
        <strong>Not</strong>
        <Button type="button" onClick={() => onChange(node.not)}>
          Remove “not”
        </Button>
      </div>
      <ConditionNode
        node={node.not}
        path={`${path}.not`}
        groups={groups}
        onChange={(next) => onChange({ not: next })}
        onRemove={onRemove}
      />
    </div>
  );
}

function LeafNode({ node, path, groups, onChange, onRemove }: NodeProps & { node: Leaf }) {
  const spec = opSpec(node.op);
  const fieldError = useFieldError(`${path}.field`);
  const opError = useFieldError(`${path}.op`);
  const valueError = useFieldError(`${path}.value`);
  const set = (patch: Partial<Leaf>) => {
    const next: Leaf = { ...node, ...patch };
    if (next.value === undefined) delete next.value;
    onChange(next);
  };
  const pair = Array.isArray(node.value) ? node.value : ["", ""];
  return (
    <div className="cond-leaf" data-field={node.field}>
      <Field label="Field" error={fieldError}>
        <FieldPicker value={node.field} groups={groups} onChange={(field) => set({ field })} />
      </Field>
      <Field label="Operator" error={opError}>
        <Select value={node.op} onChange={(e) => set({ op: e.target.value as Op, value: valueFor(e.target.value as Op, node.value) })}>
          {OPS.map((o) => (
            <option key={o.op} value={o.op}>
              {o.label}
            </option>
          ))}
        </Select>
      </Field>
      {spec.value === "one" || spec.value === "time" ? (
        <Field
          label="Value"
          error={valueError}
          hint={spec.value === "time" ? "A date, now, or a duration from now such as -P1D" : undefined}
        >
          <ValueInput value={node.value} parse={parseScalar} show={showScalar} onValue={(value) => set({ value })} />
        </Field>
      ) : spec.value === "list" ? (
        <Field label="Values" error={valueError} hint="Separated by commas">
          <ValueInput value={node.value} parse={parseList} show={showList} onValue={(value) => set({ value })} />
        </Field>
      ) : spec.value === "two" ? (
        <div className="cond-between">
          <Field label="From" error={valueError}>
            <ValueInput value={pair[0]} parse={parseScalar} show={showScalar} onValue={(v) => set({ value: [v, pair[1]] })} />
          </Field>
          <Field label="To">
            <ValueInput value={pair[1]} parse={parseScalar} show={showScalar} onValue={(v) => set({ value: [pair[0], v] })} />
          </Field>
        </div>
      ) : null}
      <div className="cond-leaf-actions">
        <Button type="button" onClick={() => onChange({ not: node })} title="Negate this rule">
          Not
        </Button>
        <Button type="button" variant="danger" onClick={onRemove} aria-label={`Remove rule on ${node.field}`}>
          Remove
        </Button>
      </div>
    </div>
  );
}
