import { useState } from "react";
import { Card } from "../../ui/Card";
import { Field } from "../../ui/Field";
import { Textarea } from "../../ui/Textarea";
import { hasContent, SAMPLE_CONTENT, wrapContent } from "./preview";

/** Plain text of the sample, as a text part would carry it. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, " ")
    .replace(/[ \t]+/g, " ")
    .trim();

/**
 * The layout as an email would look, around a sample step's HTML (which the person can change),
 * redrawn on every keystroke. Liquid other than `{{ content }}` is shown as written.
 */
export function LayoutPreview({ html, text }: { html: string; text: string }) {
  const [sample, setSample] = useState(SAMPLE_CONTENT);
  return (
    <Card className="layout-preview" aria-labelledby="layout-preview-title">
      <h2 id="layout-preview-title">Preview</h2>
      <Field label="Sample step HTML" hint="Stands in for an email step's rendered HTML.">
        <Textarea className="code" rows={4} spellCheck={false} value={sample} onChange={(e) => setSample(e.target.value)} />
      </Field>
      {hasContent(html) ? null : (
        <p className="field-error" role="status">
          The HTML needs <code>{"{{ content }}"}</code> exactly once: the step's content has nowhere to go.
        </p>
      )}
      {/* The layout runs with every sandbox restriction: no scripts, no same origin. */}
      <iframe className="layout-frame" sandbox="" srcDoc={wrapContent(html, sample)} title="Layout preview" />
      {text.trim() ? (
        <details>
          <summary>Plain text</summary>
          <pre className="layout-text" data-testid="text-preview">
            {wrapContent(text, textOf(sample))}
          </pre>
        </details>
      ) : null}
    </Card>
  );
}
