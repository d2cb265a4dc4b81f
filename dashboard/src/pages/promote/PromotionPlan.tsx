import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useConfirm } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { PromotionResultView } from "./PromotionResultView";
import { promotable, promote, promotionDiffQuery, type WorkflowPromotionDiff } from "./queries";

const STATUS_BADGE: Record<string, string> = {
  added: "ok",
  changed: "warn",
  removed: "bad",
  unchanged: "",
  needs_value: "bad",
  present: "",
};
const STATUS_LABEL: Record<string, string> = { needs_value: "needs a value", present: "set in both" };

function Status({ status }: { status: string }) {
  return <span className={`badge ${STATUS_BADGE[status] ?? ""}`}>{STATUS_LABEL[status] ?? status}</span>;
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

/** The plan between two environments: their differences, the workflows ticked, and the dry run or the real thing. */
export function PromotionPlan({ from, to }: { from: string; to: string }) {
  const queryClient = useQueryClient();
  const diff = useQuery(promotionDiffQuery(from, to));
  // Until someone ticks, every workflow that can be promoted is.
  const [ticked, setTicked] = useState<string[] | null>(null);
  const [dialog, ask] = useConfirm();
  const run = useMutation({
    mutationFn: ({ keys, dryRun }: { keys: string[]; dryRun: boolean }) => promote(from, to, keys, dryRun),
    onSuccess: (result) => {
      if (result.dryRun) return;
      setTicked(null);
      void queryClient.invalidateQueries({ queryKey: ["promotion-diff"] });
    },
  });
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
      <section className="card" aria-labelledby="promote-workflows">
        <div className="compare-head">
          <h2 id="promote-workflows">Workflows</h2>
          <div className="actions">
            <button type="button" onClick={() => pick(candidates)} disabled={candidates.length === 0}>
              Tick all added and changed
            </button>
            <button type="button" onClick={() => pick([])} disabled={picked.length === 0}>
              Untick all
            </button>
          </div>
        </div>
        {workflows.length === 0 ? (
          <p className="muted">Neither environment has a workflow.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col" aria-label="Promote" />
                  <th scope="col">Workflow</th>
                  <th scope="col">Status</th>
                  <th scope="col">What changes in {to}</th>
                </tr>
              </thead>
              <tbody>
                {workflows.map((w) => (
                  <tr key={w.key} data-workflow={w.key} data-status={w.status}>
                    <td>
                      <input
                        type="checkbox"
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
                ))}
              </tbody>
            </table>
          </div>
        )}
        <div className="promote-actions">
          <button type="button" disabled={picked.length === 0 || run.isPending} onClick={() => run.mutate({ keys: picked, dryRun: true })}>
            Dry run
          </button>
          <button type="button" className="primary" disabled={picked.length === 0 || run.isPending} onClick={() => void apply()}>
            Promote {picked.length} workflow{picked.length === 1 ? "" : "s"}…
          </button>
        </div>
        {run.error ? <ProblemView error={run.error} /> : null}
        {run.data ? <PromotionResultView result={run.data} /> : null}
      </section>
      <section className="card" aria-labelledby="promote-variables">
        <h2 id="promote-variables">Variables</h2>
        <p className="muted small">Not promoted: shown so {to} has what the workflows read. Secret values are never read.</p>
        {variables.length === 0 ? (
          <p className="muted">No variables in either environment.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {variables.map((v) => (
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
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="promote-integrations">
        <h2 id="promote-integrations">Integrations</h2>
        <p className="muted small">Compared by provider and name; credentials are never copied.</p>
        {integrations.length === 0 ? (
          <p className="muted">No integrations in either environment.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {integrations.map((i) => (
                  <tr key={`${i.provider}:${i.name}`} data-integration={`${i.provider}:${i.name}`} data-status={i.status}>
                    <td>{i.channel}</td>
                    <td>{i.provider}</td>
                    <td>{i.name}</td>
                    <td>
                      <Status status={i.status} />
                      {i.status === "added" ? <span className="small"> create it in {to} with its credentials</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
