import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { ProblemView } from "../../ui/ProblemView";
import { describeCondition } from "./describe";
import { parseObject, type Step } from "./model";
import { previewQuery } from "./queries";
import { useDebounced } from "../../ui/use-debounced";
import { typeLabel } from "../../ui/labels";
import { Textarea } from "../../ui/Textarea";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";

type PreviewStep = components["schemas"]["PreviewStep"];
type PreviewSubscriber = components["schemas"]["PreviewSubscriber"];
type DraftPreviewRequest = components["schemas"]["DraftPreviewRequest"];
export const PREVIEW_DELAY_MS = 300;

/**
 * What each step would do for a sample payload and subscriber, re-rendered as the sample or the
 * steps change (debounced; nothing is asked while a sample is not valid JSON). Nothing is sent.
 */
export function PreviewPanel({
  workflowKey,
  name,
  steps,
  payloadText,
  subscriberText,
  onPayload,
  onSubscriber,
}: {
  workflowKey: string;
  name: string;
  steps: Step[];
  payloadText: string;
  subscriberText: string;
  onPayload: (text: string) => void;
  onSubscriber: (text: string) => void;
}) {
  const payload = parseObject(payloadText, "payload");
  const subscriber = parseObject(subscriberText, "subscriber");
  const request =
    payload.ok && subscriber.ok
      ? // A string, so the debounce and the query key compare by value.
        JSON.stringify({
          workflow: {
            key: workflowKey.slice(0, 64) || "draft",
            name: name.slice(0, 256),
            steps,
          },
          payload: payload.value ?? {},
          subscriber: (subscriber.value ?? {}) as PreviewSubscriber,
        } satisfies Partial<DraftPreviewRequest>)
      : null;
  const api = useApi();
  const settled = useDebounced(request, PREVIEW_DELAY_MS);
  const preview = useQuery({
    ...previewQuery(api, settled),
    enabled: settled !== null && steps.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });
  const invalid = [payload, subscriber].flatMap((p) => (p.ok ? [] : [p.message]));
  const result = preview.data;

  return (
    <Card className="preview" aria-label="Preview">
      <h2>Preview</h2>
      <p className="muted small">Edit the sample; the steps re-render as you type. Nothing is sent.</p>
      <label htmlFor="preview-payload">Sample payload</label>
      <Textarea
        id="preview-payload"
        className="code"
        rows={6}
        spellCheck={false}
        aria-invalid={payload.ok ? undefined : true}
        value={payloadText}
        onChange={(e) => onPayload(e.target.value)}
      />
      <label htmlFor="preview-subscriber">Sample subscriber</label>
      <Textarea
        id="preview-subscriber"
        className="code"
        rows={5}
        spellCheck={false}
        aria-invalid={subscriber.ok ? undefined : true}
        value={subscriberText}
        onChange={(e) => onSubscriber(e.target.value)}
      />
      {invalid.length ? (
        <p className="field-error" role="alert" data-testid="preview-state">
          {invalid.join(" ")}
        </p>
      ) : (
        <p className="muted small" data-testid="preview-state" aria-live="polite">
          {steps.length === 0
            ? "Add a step to preview it."
            : preview.isFetching || request !== settled
              ? "Rendering…"
              : result
                ? `${result.steps.filter((s) => s.wouldRun).length} of ${result.steps.length} steps would run.`
                : ""}
        </p>
      )}
      {preview.error ? <ProblemView error={preview.error} /> : null}
      {result && !preview.error && steps.length > 0 ? (
        <div className="preview-results" data-testid="preview-results">
          {result.steps.map((step, i) => (
            // Cards keep no state, and ids may repeat in a draft.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <StepCard key={i} step={step} condition={steps[i]?.if} />
          ))}
        </div>
      ) : null}
    </Card>
  );
}

function StepCard({ step, condition }: { step: PreviewStep; condition: Step["if"] }) {
  return (
    <article className={`preview-step ${step.wouldRun ? "runs" : "skips"}`} data-step={step.id} data-would-run={String(step.wouldRun)}>
      <header>
        <strong>{step.id}</strong> <span className="muted">{typeLabel(step.type)}</span>{" "}
        <Badge tone={step.wouldRun ? "ok" : ""} data-testid="verdict">
          {step.wouldRun ? "would run" : "skipped"}
        </Badge>
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
