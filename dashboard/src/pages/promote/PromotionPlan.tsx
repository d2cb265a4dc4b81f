import { useMutation, useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useApi } from "../../api/context";
import { useConfirm } from "../../ui/ConfirmDialog";
import { type Column, DataList, fixedList } from "../../ui/DataList";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { PromotionResultView } from "./PromotionResultView";
import { promotable, promoteMutation, promotionDiffQuery, type WorkflowPromotionDiff } from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Checkbox } from "../../ui/Input";
import { Badge, type BadgeTone } from "../../ui/Badge";
import { Card } from "../../ui/Card";

const STATUS_BADGE: Record<string, BadgeTone> = {
  added: "ok",
  changed: "warn",
  removed: "bad",
  unchanged: "",
  needs_value: "bad",
  present: "",
};
const STATUS_LABEL: Record<string, string> = { needs_value: "needs a value", present: "set in both" };

function Status({ status }: { status: string }) {
  return <Badge tone={STATUS_BADGE[status] ?? ""}>{STATUS_LABEL[status] ?? status}</Badge>;
}

const describe = (c: WorkflowPromotionDiff["changes"][number]) =>
  c.step === null
    ? `${c.fields.join(", ")} changed`
    : c.change === "changed"
      ? `step "${c.step}": ${c.fields.join(", ")}`
      : `step "${c.step}" ${c.change}`;

/** One workflow's difference: what changes in words, and the JSON Patch the target's definition would get. */
function WorkflowChanges({ workflow, to }: { workflow: WorkflowPromotionDiff; to: string }) {
  if (workflow.status === "unchanged") return <span className="muted">Same content in both</span>;
  if (workflow.status === "removed") return <span className="muted">Only in {to}: a promotion leaves it as it is</span>;
  if (workflow.status === "added") return <span>New in {to}</span>;
  return (
    <details>
      <summary>{workflow.changes.map(describe).join("; ")}</summary>
      <pre className="patch">{JSON.stringify(workflow.patch, null, 2)}</pre>
    </details>
  );
}

/** One part of the plan: a card with its title (and actions), a note, and a row per difference. */
function PlanSection<T>({
  id,
  title,
  actions,
  note,
  rows,
  empty,
  columns,
  row,
  children,
}: {
  id: string;
  title: string;
  actions?: ReactNode;
  note?: string;
  rows: T[];
  empty: string;
  columns: Column[];
  row: (item: T) => ReactNode;
  children?: ReactNode;
}) {
  return (
    <Card aria-labelledby={id}>
      <div className="compare-head">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="actions">{actions}</div> : null}
      </div>
      {note ? <p className="muted small">{note}</p> : null}
      <DataList list={fixedList(rows)} what={title.toLowerCase()} empty={empty} compact columns={columns} row={row} />
      {children}
    </Card>
  );
}

/** The plan between two environments: their differences, the workflows ticked, and the dry run or the real thing. */
export function PromotionPlan({ from, to }: { from: string; to: string }) {
  const api = useApi();
  const diff = useQuery(promotionDiffQuery(api, from, to));
  // Until someone ticks, every workflow that can be promoted is.
  const [ticked, setTicked] = useState<string[] | null>(null);
  const [dialog, ask] = useConfirm();
  const run = useMutation(
    andThen(promoteMutation(api, from, to), (result) => {
      if (!result.dryRun) setTicked(null);
    }),
  );
  if (diff.error) return <ProblemView error={diff.error} />;
  if (!diff.data) return <Loading what="the differences" />;
  const { workflows, variables, integrations } = diff.data;
  const candidates = workflows.filter(promotable).map((w) => w.key);
  const picked = ticked ?? candidates;
  const pick = (next: string[]) => {
    setTicked(next);
    run.reset();
  };
  const needsValue = variables.filter((v) => v.status === "needs_value").map((v) => v.key);
  const apply = async () => {
    const yes = await ask({
      title: `Promote ${picked.length} workflow${picked.length === 1 ? "" : "s"} to ${to}?`,
      body: (
        <>
          <p>
            {picked.join(", ")} become{picked.length === 1 ? "s" : ""} a new version in {to}, authored "promotion from {from}". Triggers
            already accepted in {to} keep the version they started with.
          </p>
          {needsValue.length ? (
            <p className="problem">
              Secret variables are not copied: set {needsValue.join(", ")} in {to} by hand.
            </p>
          ) : null}
        </>
      ),
      confirm: "Promote",
      danger: true,
    });
    if (yes) run.mutate({ keys: picked, dryRun: false });
  };

  return (
    <div className="promotion">
      {dialog}
      <PlanSection
        id="promote-workflows"
        title="Workflows"
        actions={
          <>
            <Button type="button" onClick={() => pick(candidates)} disabled={candidates.length === 0}>
              Tick all added and changed
            </Button>
            <Button type="button" onClick={() => pick([])} disabled={picked.length === 0}>
              Untick all
            </Button>
          </>
        }
        rows={workflows}
        empty="Neither environment has a workflow."
        columns={[{ label: "Promote" }, "Workflow", "Status", `What changes in ${to}`]}
        row={(w) => (
          <tr key={w.key} data-workflow={w.key} data-status={w.status}>
            <td>
              <Checkbox
                aria-label={`Promote ${w.key}`}
                disabled={!promotable(w)}
                checked={picked.includes(w.key)}
                onChange={(e) => pick(e.target.checked ? [...picked, w.key] : picked.filter((k) => k !== w.key))}
              />
            </td>
            <td>
              <code>{w.key}</code>
            </td>
            <td>
              <Status status={w.status} />
            </td>
            <td>
              <WorkflowChanges workflow={w} to={to} />
            </td>
          </tr>
        )}
      >
        <div className="promote-actions">
          <Button type="button" disabled={picked.length === 0 || run.isPending} onClick={() => run.mutate({ keys: picked, dryRun: true })}>
            Dry run
          </Button>
          <Button type="button" variant="primary" disabled={picked.length === 0 || run.isPending} onClick={() => void apply()}>
            Promote {picked.length} workflow{picked.length === 1 ? "" : "s"}…
          </Button>
        </div>
        {run.error ? <ProblemView error={run.error} /> : null}
        {run.data ? <PromotionResultView result={run.data} /> : null}
      </PlanSection>
      <PlanSection
        id="promote-variables"
        title="Variables"
        note={`Not promoted: shown so ${to} has what the workflows read. Secret values are never read.`}
        rows={variables}
        empty="No variables in either environment."
        columns={["Key", "Kind", "Status"]}
        row={(v) => (
          <tr key={v.key} data-variable={v.key} data-status={v.status}>
            <td>
              <code>{v.key}</code>
            </td>
            <td>{v.secret ? "secret" : "plain"}</td>
            <td>
              <Status status={v.status} />
              {v.status === "needs_value" ? <span className="small"> set it in {to} by hand</span> : null}
            </td>
          </tr>
        )}
      />
      <PlanSection
        id="promote-integrations"
        title="Integrations"
        note="Compared by provider and name; credentials are never copied."
        rows={integrations}
        empty="No integrations in either environment."
        columns={["Channel", "Provider", "Name", "Status"]}
        row={(i) => (
          <tr key={`${i.provider}:${i.name}`} data-integration={`${i.provider}:${i.name}`} data-status={i.status}>
            <td>{i.channel}</td>
            <td>{i.provider}</td>
            <td>{i.name}</td>
            <td>
              <Status status={i.status} />
              {i.status !== "added" ? null : i.developmentOnly ? (
                <span className="small" data-note="development-only">
                  {" "}
                  development only: the sandbox sends nothing, so {to} needs a real {i.channel} provider instead
                </span>
              ) : (
                <span className="small"> create it in {to} with its credentials</span>
              )}
            </td>
          </tr>
        )}
      />
    </div>
  );
}
