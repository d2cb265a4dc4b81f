import type { components } from "../../api/openapi";
import { ProblemView } from "../../ui/ProblemView";
import { describeCondition } from "./describe";
import type { Step } from "./model";
import { typeLabel } from "../../ui/labels";
import { Textarea } from "../../ui/Textarea";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import { classNames } from "../../ui/class-names";
import type { Preview } from "./use-preview";
import type { Samples } from "./samples";
import { placeSteps } from "./tree";

type PreviewStep = components["schemas"]["PreviewStep"];

/**
 * What each step would do for a sample payload and subscriber (and sample answers of fetch
 * steps), re-rendered as the sample or the steps change. The selected step's card comes first;
 * every step in run order, indented by branch depth, those off the sample's path marked and the
 * selected step's card highlighted. Nothing is sent.
 */
export function PreviewPanel({
  steps,
  selected,
  samples,
  preview,
  onSamples,
}: {
  steps: Step[];
  selected: string;
  samples: Samples;
  preview: Preview;
  onSamples: (samples: Samples) => void;
}) {
  const { query, invalid } = preview;
  const result = query.data;
  const placed = placeSteps(steps);
  const fetches = placed.filter((p) => p.step.type === "http");

  return (
    <Card className="preview" aria-label="Preview">
      <h2>Preview</h2>
      <p className="muted small">Edit the sample; the steps re-render as you type. Nothing is sent, and no fetch step is called.</p>
      <label htmlFor="preview-payload">Sample payload</label>
      <Textarea
        id="preview-payload"
        className="code"
        rows={6}
        spellCheck={false}
        aria-invalid={preview.payloadOk ? undefined : true}
        value={samples.payload}
        onChange={(e) => onSamples({ ...samples, payload: e.target.value })}
      />
      <label htmlFor="preview-subscriber">Sample subscriber</label>
      <Textarea
        id="preview-subscriber"
        className="code"
        rows={5}
        spellCheck={false}
        aria-invalid={preview.subscriberOk ? undefined : true}
        value={samples.subscriber}
        onChange={(e) => onSamples({ ...samples, subscriber: e.target.value })}
      />
      {fetches.length || samples.responses ? (
        <>
          <label htmlFor="preview-responses">Sample fetch responses</label>
          <Textarea
            id="preview-responses"
            className="code"
            rows={4}
            spellCheck={false}
            placeholder={JSON.stringify({ [fetches[0]?.step.id ?? "fetch"]: { status: 200, body: { plan: "pro" } } }, null, 2)}
            aria-invalid={preview.responsesOk ? undefined : true}
            aria-describedby="preview-responses-hint"
            value={samples.responses ?? ""}
            onChange={(e) => onSamples({ ...samples, responses: e.target.value })}
          />
          <span id="preview-responses-hint" className="field-hint">
            By fetch step id: what later steps read as steps.&lt;id&gt;.response.status and .body.
          </span>
        </>
      ) : null}
      {invalid.length ? (
        <p className="field-error" role="alert" data-testid="preview-state">
          {invalid.join(" ")}
        </p>
      ) : (
        <p className="muted small" data-testid="preview-state" aria-live="polite">
          {steps.length === 0
            ? "Add a step to preview it."
            : preview.pending
              ? "Rendering…"
              : result
                ? `${result.steps.filter((s) => s.wouldRun).length} of ${result.steps.length} steps would run.`
                : ""}
        </p>
      )}
      {query.error ? <ProblemView error={query.error} /> : null}
      {result && !query.error && steps.length > 0 ? (
        <div className="preview-results" data-testid="preview-results">
          {result.steps.map((step, i) => (
            <StepCard
              // Cards keep no state, and ids may repeat in a draft.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              key={i}
              step={step}
              condition={placed[i]?.step.if}
              depth={placed[i]?.depth ?? 0}
              selected={placed[i]?.at === selected && placed[i]?.step.id === step.id}
            />
          ))}
        </div>
      ) : null}
    </Card>
  );
}

/** A step's card, indented as deep as it sits in branches; the selected step's stands out. */
function StepCard({
  step,
  condition,
  depth = 0,
  selected = false,
}: {
  step: PreviewStep;
  condition: Step["if"];
  depth?: number;
  selected?: boolean;
}) {
  return (
    <article
      className={classNames("preview-step", step.wouldRun ? "runs" : "skips", !step.onPath && "off-path", selected && "selected")}
      style={depth ? { marginInlineStart: `${depth * 12}px` } : undefined}
      data-step={step.id}
      data-selected={selected ? "true" : undefined}
      aria-current={selected ? "step" : undefined}
      data-would-run={String(step.wouldRun)}
      data-on-path={String(step.onPath)}
    >
      <header>
        <strong>{step.id}</strong> <span className="muted">{typeLabel(step.type)}</span>{" "}
        <Badge tone={step.wouldRun ? "ok" : ""} data-testid="verdict">
          {step.wouldRun ? "would run" : step.onPath ? "skipped" : "not on the path"}
        </Badge>
        {step.path !== undefined ? (
          <span className="small" data-testid="chosen-path">
            {" "}
            ·{" "}
            {step.path === null ? (
              "takes no path"
            ) : (
              <>
                takes path <code>{step.path}</code>
              </>
            )}
          </span>
        ) : null}
        {step.locale ? <span className="muted small"> · locale {step.locale}</span> : null}
      </header>
      {step.condition ? (
        <>
          <p className="condition small">
            if <code>{describeCondition(condition)}</code> → <strong>{String(step.condition.result)}</strong>
          </p>
          <ul className="leaves small">
            {step.condition.leaves.map((leaf, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: leaves are listed in the condition's order and never reordered
              <li key={i} className={leaf.result ? "pass" : "fail"}>
                {leaf.result ? "✓ " : "✗ "}
                <code>
                  {leaf.field} {leaf.op}
                  {leaf.value === undefined ? "" : ` ${JSON.stringify(leaf.value)}`}
                </code>
                <span className="muted"> (actual: {leaf.actual === undefined ? "missing" : JSON.stringify(leaf.actual)})</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {step.error ? (
        <div className="problem" data-code={step.error.code}>
          <strong>{step.error.code === "invalid_step" ? "Not valid yet" : "Template error"}</strong>
          <p>{step.error.message}</p>
        </div>
      ) : null}
      {step.response ? (
        <div className="rendered" data-field="response">
          <span className="label">sample response</span>
          <pre className="value">{`${step.response.status}\n${JSON.stringify(step.response.body, null, 2)}`}</pre>
        </div>
      ) : step.type === "http" ? (
        <p className="muted small">No sample response: later steps read no steps.{step.id}.response.</p>
      ) : null}
      {step.content ? <Content content={step.content} /> : null}
    </article>
  );
}

const TEXT_FIELDS = ["subject", "title", "body", "text", "from", "replyTo"];

function Content({ content }: { content: Record<string, unknown> }) {
  const rest = Object.fromEntries(Object.entries(content).filter(([k]) => k !== "html" && !TEXT_FIELDS.includes(k)));
  return (
    <div className="content">
      {TEXT_FIELDS.filter((f) => typeof content[f] === "string").map((f) => (
        <div key={f} className="rendered" data-field={f}>
          <span className="label">{f}</span>
          <div className="value">{String(content[f])}</div>
        </div>
      ))}
      {typeof content.html === "string" ? (
        <div className="rendered" data-field="html">
          <span className="label">html</span>
          {/* Rendered email HTML runs with every sandbox restriction: no scripts, no same origin. */}
          <iframe className="html" sandbox="" srcDoc={content.html} title="Rendered HTML" />
        </div>
      ) : null}
      {Object.keys(rest).length ? (
        <details>
          <summary>Other fields</summary>
          <pre>{JSON.stringify(rest, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}
