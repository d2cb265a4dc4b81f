import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/context";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { PromotionResultView } from "./PromotionResultView";
import { ContentSections } from "./ContentSections";
import { PlanSection, Status } from "./PlanSection";
import { type PromotionChoice, promotable, promoteMutation, promotionDiffQuery, type WorkflowPromotionDiff } from "./queries";
import { andThen } from "../../api/mutations";
import { Button } from "../../ui/Button";
import { Checkbox } from "../../ui/Input";
import { Card } from "../../ui/Card";

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

/** The plan between two environments: their differences, the workflows ticked, and the dry run or the real thing. */
export function PromotionPlan({ from, to }: { from: string; to: string }) {
  const api = useApi();
  const diff = useQuery(promotionDiffQuery(api, from, to));
  // Until someone ticks, everything that can be promoted is.
  const [ticked, setTicked] = useState<PromotionChoice | null>(null);
  const [dialog, ask] = useConfirm();
  const run = useMutation(
    andThen(promoteMutation(api, from, to), (result) => {
      if (!result.dryRun) setTicked(null);
    }),
  );
  if (diff.error) return <ProblemView error={diff.error} />;
  if (!diff.data) return <Loading what="the differences" />;
  const { workflows, variables, integrations } = diff.data;
  const all: PromotionChoice = {
    workflows: workflows.filter(promotable).map((w) => w.key),
    brand: promotable(diff.data.brand),
    locales: diff.data.translations.filter(promotable).map((t) => t.locale),
  };
  const picked = ticked ?? all;
  const pick = (next: Partial<PromotionChoice>) => {
    setTicked({ ...picked, ...next });
    run.reset();
  };
  const nothing = picked.workflows.length === 0 && !picked.brand && picked.locales.length === 0;
  const what = [
    ...(picked.workflows.length || nothing ? [`${picked.workflows.length} workflow${picked.workflows.length === 1 ? "" : "s"}`] : []),
    ...(picked.brand ? ["the brand"] : []),
    ...(picked.locales.length ? [`${picked.locales.length} locale${picked.locales.length === 1 ? "" : "s"}`] : []),
  ].join(", ");
  const needsValue = variables.filter((v) => v.status === "needs_value").map((v) => v.key);
  const apply = async () => {
    const yes = await ask({
      title: `Promote ${what} to ${to}?`,
      body: (
        <>
          {picked.workflows.length ? (
            <p>
              {picked.workflows.join(", ")} become{picked.workflows.length === 1 ? "s" : ""} a new version in {to}, authored "promotion from{" "}
              {from}", with the layouts and partials they use. Triggers already accepted in {to} keep the version they started with.
            </p>
          ) : null}
          {picked.brand ? <p>The brand becomes a new version in {to}.</p> : null}
          {picked.locales.length ? (
            <p>
              The texts of {picked.locales.join(", ")} replace {to}'s.
            </p>
          ) : null}
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
    if (yes) run.mutate({ choice: picked, dryRun: false });
  };

  return (
    <div className="promotion">
      {dialog}
      <PlanSection
        id="promote-workflows"
        title="Workflows"
        actions={
          <>
            <Button type="button" onClick={() => pick(all)}>
              Tick all added and changed
            </Button>
            <Button type="button" onClick={() => pick({ workflows: [], brand: false, locales: [] })} disabled={nothing}>
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
                checked={picked.workflows.includes(w.key)}
                onChange={(e) =>
                  pick({ workflows: e.target.checked ? [...picked.workflows, w.key] : picked.workflows.filter((k) => k !== w.key) })
                }
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
      ></PlanSection>
      <ContentSections diff={diff.data} to={to} picked={picked} pick={pick} />
      <Card aria-label="Run the promotion">
        <div className="promote-actions">
          <Button type="button" disabled={nothing || run.isPending} onClick={() => run.mutate({ choice: picked, dryRun: true })}>
            Dry run
          </Button>
          <Button type="button" variant="primary" disabled={nothing || run.isPending} onClick={() => void apply()}>
            Promote {what}…
          </Button>
        </div>
        {run.error ? <ProblemView error={run.error} /> : null}
        {run.data ? <PromotionResultView result={run.data} /> : null}
      </Card>
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
