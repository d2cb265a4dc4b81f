import { useState } from "react";
import { Field } from "../../ui/Field";
import { useFieldError } from "./save-errors";
import { Textarea } from "../../ui/Textarea";

/**
 * A template field that is JSON, not text (a push's `data`, a chat's Slack `blocks`): kept as typed
 * while it does not parse, stored once it is the right kind; empty removes it.
 */
export function JsonTemplateField({
  label,
  kind,
  path,
  value,
  onChange,
}: {
  label: string;
  kind: "object" | "array";
  path: string;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(() => (value === undefined ? "" : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | undefined>();
  const serverError = useFieldError(path);
  const accept = (next: string) => {
    setText(next);
    if (!next.trim()) {
      setProblem(undefined);
      onChange(undefined);
      return;
    }
    try {
      const parsed: unknown = JSON.parse(next);
      const right = kind === "array" ? Array.isArray(parsed) : typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
      setProblem(right ? undefined : `Must be a JSON ${kind}.`);
      if (right) onChange(parsed);
    } catch (error) {
      setProblem(`Not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return (
    <Field label={label} error={problem ?? serverError} hint="JSON; string values are Liquid templates">
      <Textarea className="code" rows={4} spellCheck={false} value={text} onChange={(e) => accept(e.target.value)} />
    </Field>
  );
}
