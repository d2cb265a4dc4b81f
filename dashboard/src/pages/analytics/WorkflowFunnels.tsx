import { Link } from "react-router";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { components } from "../../api/openapi";
import { Button } from "../../ui/Button";
import { Table } from "../../ui/Table";
import { typeLabel } from "../../ui/labels";
import { ChartFigure } from "./ChartFigure";
import { count } from "./format";
import { COLORS, TOOLTIP_STYLE } from "./palette";

type Workflow = components["schemas"]["AnalyticsWorkflow"];
type Step = components["schemas"]["AnalyticsFunnelStep"];

const STAGES = ["reached", "sent", "delivered", "engaged"] as const;
const STAGE_LABELS: Record<(typeof STAGES)[number], string> = {
  reached: "Reached",
  sent: "Sent",
  delivered: "Delivered",
  engaged: "Engaged",
};

/** Reasons with their counts, most first; "none" when there are none. */
function Reasons({ title, reasons, testId }: { title: string; reasons: Record<string, number>; testId: string }) {
  const entries = Object.entries(reasons).sort((a, b) => b[1] - a[1]);
  return (
    <div data-reasons={testId}>
      <h4>{title}</h4>
      {entries.length === 0 ? (
        <p className="muted small">None.</p>
      ) : (
        <ul>
          {entries.map(([reason, n]) => (
            <li key={reason} data-reason={reason} data-count={n}>
              {reason === "unknown" ? <span className="muted">reason not recorded</span> : <code>{reason}</code>}: {count(n)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What became of a step's messages that went no further: why they were skipped, and why they failed. */
function StepDrill({ workflow, step }: { workflow: Workflow; step: Step }) {
  const activity = (status: string) =>
    `/activity?${new URLSearchParams({ tab: "messages", workflow: workflow.workflowKey, status, channel: step.channel })}`;
  return (
    <section className="analytics-drill" aria-label={`Step ${step.stepId}: skipped and failed`} data-drill={step.stepId}>
      <h3>
        Step <code>{step.stepId}</code> <span className="muted small">({typeLabel(step.channel)})</span>
      </h3>
      <p className="small">
        {count(step.skipped)} skipped, {count(step.failed)} failed, {count(step.cancelled)} cancelled of {count(step.reached)} reached.
      </p>
      <div className="analytics-grid">
        <Reasons title="Skipped, by reason" reasons={step.skippedByReason} testId="skipped" />
        <Reasons title="Failed, by reason" reasons={step.failedByReason} testId="failed" />
      </div>
      <p className="small">
        <Link to={activity("failed")}>Failed messages in Activity</Link> ·{" "}
        <Link to={activity("skipped")}>Skipped messages in Activity</Link>
      </p>
    </section>
  );
}

/**
 * One workflow's funnel: for each step, the messages that reached it, were sent, delivered and
 * engaged with. Choosing a step (its bar or its button) shows its skip reasons and failures.
 */
function Funnel({
  workflow,
  selected,
  select,
}: {
  workflow: Workflow;
  selected: string | undefined;
  select: (stepId: string | undefined) => void;
}) {
  const step = workflow.steps.find((s) => s.stepId === selected);
  const title = workflow.name ?? workflow.workflowKey;
  return (
    <section className="card" aria-label={`Workflow ${title}`} data-workflow={workflow.workflowKey}>
      <h3>
        {title} {workflow.name ? <code className="muted small">{workflow.workflowKey}</code> : null}
        {workflow.exists ? null : <span className="muted small"> (deleted)</span>}
      </h3>
      <p className="small muted">
        {count(workflow.triggers)} triggers · {count(workflow.recipients)} recipients · {count(workflow.messages)} messages
      </p>
      {workflow.steps.length === 0 ? (
        <p className="muted small">No messages from its steps in this period.</p>
      ) : (
        <>
          <ChartFigure
            testId={`funnel-${workflow.workflowKey}`}
            title="Funnel per step"
            description="reached, sent, delivered, engaged (opened, clicked, seen or read)"
            chart={
              <ResponsiveContainer width="100%" height={200}>
                <BarChart
                  accessibilityLayer={false}
                  data={workflow.steps}
                  margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
                  onClick={(state) => {
                    const index = Number(state?.activeTooltipIndex);
                    const clicked = Number.isInteger(index) ? workflow.steps[index] : undefined;
                    if (clicked) select(clicked.stepId === selected ? undefined : clicked.stepId);
                  }}
                >
                  <CartesianGrid strokeDasharray="3 3" stroke="var(--color-line)" />
                  <XAxis dataKey="stepId" tick={{ fontSize: 11 }} />
                  <YAxis allowDecimals={false} tick={{ fontSize: 11 }} />
                  <Tooltip {...TOOLTIP_STYLE} cursor={{ fill: "var(--color-accent-bg)" }} />
                  <Legend itemSorter={null} wrapperStyle={{ fontSize: 12 }} />
                  {STAGES.map((s) => (
                    <Bar key={s} dataKey={s} name={STAGE_LABELS[s]} fill={COLORS[s]} isAnimationActive={false} cursor="pointer" />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            }
            table={
              <Table>
                <caption className="visually-hidden">Funnel of {title} per step</caption>
                <thead>
                  <tr>
                    <th scope="col">Step</th>
                    {STAGES.map((s) => (
                      <th key={s} scope="col" className="num">
                        {STAGE_LABELS[s]}
                      </th>
                    ))}
                    <th scope="col" className="num">
                      Skipped
                    </th>
                    <th scope="col" className="num">
                      Failed
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {workflow.steps.map((s) => (
                    <tr key={s.stepId} data-step={s.stepId}>
                      <th scope="row">
                        {s.stepId}
                        {s.inWorkflow ? null : <span className="muted small"> (removed)</span>}
                      </th>
                      {STAGES.map((stage) => (
                        <td key={stage} className="num" data-figure={stage}>
                          {count(s[stage])}
                        </td>
                      ))}
                      <td className="num" data-figure="skipped">
                        {count(s.skipped)}
                      </td>
                      <td className="num" data-figure="failed">
                        {count(s.failed)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            }
          />
          <fieldset className="analytics-steps">
            <legend className="muted small">Steps: choose one for its skip reasons and failures</legend>
            {workflow.steps.map((s) => (
              <Button
                key={s.stepId}
                size="sm"
                aria-pressed={s.stepId === selected}
                onClick={() => select(s.stepId === selected ? undefined : s.stepId)}
              >
                {s.stepId}
              </Button>
            ))}
          </fieldset>
          {step ? <StepDrill workflow={workflow} step={step} /> : null}
        </>
      )}
    </section>
  );
}

/** A funnel per workflow; the step drilled into lives in the address (`funnel`, `step`). */
export function WorkflowFunnels({
  workflows,
  funnel,
  step,
  update,
}: {
  workflows: Workflow[];
  funnel: string | undefined;
  step: string | undefined;
  update: (changes: { funnel?: string; step?: string }) => void;
}) {
  if (workflows.length === 0) return <p className="empty muted">No workflow sent anything in this period.</p>;
  return (
    <>
      {workflows.map((w) => (
        <Funnel
          key={w.workflowKey}
          workflow={w}
          selected={funnel === w.workflowKey ? step : undefined}
          select={(stepId) => update({ funnel: stepId ? w.workflowKey : undefined, step: stepId })}
        />
      ))}
    </>
  );
}
