import { Field } from "../../ui/Field";
import { parseObject } from "./model";
import { useFieldError } from "./save-errors";
import { Button } from "../../ui/Button";
import { Textarea } from "../../ui/Textarea";
import { Card } from "../../ui/Card";

const STARTER = { type: "object", required: ["orderId"], properties: { orderId: { type: "string" }, express: { type: "boolean" } } };

/** The JSON Schema every trigger's payload must satisfy; its properties are offered to conditions. */
export function PayloadSchemaEditor({ text, onChange }: { text: string; onChange: (text: string) => void }) {
  const parsed = parseObject(text, "payload schema");
  const serverError = useFieldError("payloadSchema");
  return (
    <Card aria-label="Payload schema">
      <h2>Payload schema</h2>
      <Field
        label="JSON Schema"
        error={parsed.ok ? serverError : parsed.message}
        hint="Optional. Triggers whose payload does not match it are refused with 422; its properties are offered to conditions."
      >
        <Textarea
          className="code"
          rows={Math.min(16, Math.max(4, text.split("\n").length))}
          spellCheck={false}
          value={text}
          placeholder='{ "type": "object", "properties": { "orderId": { "type": "string" } } }'
          onChange={(e) => onChange(e.target.value)}
        />
      </Field>
      {text.trim() ? null : (
        <Button type="button" onClick={() => onChange(JSON.stringify(STARTER, null, 2))}>
          Start from an example
        </Button>
      )}
    </Card>
  );
}
