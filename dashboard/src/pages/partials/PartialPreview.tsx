import { Card } from "../../ui/Card";

/**
 * The partial as it is typed: HTML drawn in a sandboxed frame, text as it would read. Its Liquid
 * (the render's arguments) is shown as written: they are only known where it is rendered.
 */
export function PartialPreview({ content, type }: { content: string; type: "html" | "text" }) {
  return (
    <Card className="content-preview" aria-labelledby="partial-preview-title">
      <h2 id="partial-preview-title">Preview</h2>
      {type === "html" ? (
        // No scripts, no same origin: what the partial holds cannot reach the dashboard.
        <iframe className="layout-frame partial-frame" sandbox="" srcDoc={content} title="Partial preview" />
      ) : (
        <pre className="layout-text" data-testid="text-preview">
          {content}
        </pre>
      )}
    </Card>
  );
}
