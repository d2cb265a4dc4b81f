import type { components } from "../../api/openapi";
import { Badge } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import { typeLabel } from "../../ui/labels";

type Preview = components["schemas"]["ProposalPreview"];
type PreviewStep = components["schemas"]["PreviewStep"];

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

function StepCard({ step }: { step: PreviewStep }) {
  const content = step.content && typeof step.content === "object" ? Object.entries(step.content) : [];
  return (
    <div className="proposal-step" data-step={step.id}>
      <h3>
        {step.id} <span className="muted">({typeLabel(step.type)})</span>{" "}
        {step.wouldRun ? null : <Badge tone="">would not run for the sample</Badge>}
      </h3>
      {step.error ? <p className="field-error">{step.error.message}</p> : null}
      {content.length > 0 ? (
        <dl className="rendered">
          {content.map(([field, value]) => (
            <div key={field}>
              <dt>{field}</dt>
              <dd>
                <pre className="value">{show(value)}</pre>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
    </div>
  );
}

/** The proposed content as it would render: a workflow's steps with its example payload, a layout around a sample, a partial, a locale's texts. */
export function ProposalPreview({ preview }: { preview: Preview | null }) {
  return (
    <Card className="proposal-preview" aria-labelledby="proposal-preview-title" data-testid="proposal-preview">
      <h2 id="proposal-preview-title">Preview</h2>
      {preview === null ? (
        <p className="muted">Nothing to render: the content is not in a shape that can be previewed.</p>
      ) : preview.resource === "workflow" ? (
        <>
          <p className="muted small">
            Rendered with the first example of the workflow's payload schema, or an empty payload. Nothing is sent.
          </p>
          {preview.steps.map((step) => (
            <StepCard key={step.id} step={step} />
          ))}
        </>
      ) : preview.resource === "layout" ? (
        preview.error ? (
          <p className="field-error">{preview.error}</p>
        ) : (
          <>
            {/* The layout runs with every sandbox restriction: no scripts, no same origin. */}
            <iframe className="layout-frame" sandbox="" srcDoc={preview.html ?? ""} title="Layout preview" />
            {preview.text !== null ? <pre className="value">{preview.text}</pre> : null}
          </>
        )
      ) : preview.resource === "partial" ? (
        preview.error ? (
          <p className="field-error">{preview.error}</p>
        ) : (
          <pre className="value">{preview.content}</pre>
        )
      ) : (
        <dl className="rendered">
          {Object.entries(preview.texts).map(([key, text]) => (
            <div key={key}>
              <dt>
                <code>{key}</code>
              </dt>
              <dd>
                <pre className="value">{show(text)}</pre>
              </dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}
