import { useState } from "react";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { Input } from "../../ui/Input";
import { Select } from "../../ui/Select";
import { Textarea } from "../../ui/Textarea";
import type { Step } from "./model";
import { useFieldError } from "./save-errors";

type Http = Extract<Step, { type: "http" }>;
const METHODS: Http["request"]["method"][] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** A body typed as a JSON object is sent as JSON (its string values Liquid); anything else as Liquid text. */
function parseBody(text: string): Http["request"]["body"] {
  if (!text.trim()) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not JSON: Liquid text.
  }
  return text;
}

/** A fetch step: the request (Liquid in its URL, headers and body), how long to wait, and what a failure does. */
export function HttpFields({ step, path, onChange }: { step: Http; path: string; onChange: (step: Step) => void }) {
  const request = step.request;
  const setRequest = (patch: Partial<Http["request"]>) => onChange({ ...step, request: { ...request, ...patch } });
  const urlError = useFieldError(`${path}.request.url`);
  const bodyError = useFieldError(`${path}.request.body`);
  const timeoutError = useFieldError(`${path}.timeoutMs`);
  const headersError = useFieldError(`${path}.request.headers`);
  // Headers as rows, so a name can be typed (or left blank) before it is a key.
  const [rows, setRows] = useState<[string, string][]>(() => Object.entries(request.headers ?? {}));
  const setHeaders = (next: [string, string][]) => {
    setRows(next);
    const named = next.filter(([name]) => name.trim());
    setRequest({ headers: named.length ? Object.fromEntries(named.map(([n, v]) => [n.trim(), v])) : undefined });
  };
  const [body, setBody] = useState(() =>
    request.body === undefined ? "" : typeof request.body === "string" ? request.body : JSON.stringify(request.body, null, 2),
  );
  return (
    <section className="http-fields" aria-label="Request">
      <h4>Request</h4>
      <div className="row">
        <Field label="Method">
          <Select value={request.method} onChange={(e) => setRequest({ method: e.target.value as Http["request"]["method"] })}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </Select>
        </Field>
        <Field label="URL" error={urlError} hint="Liquid, e.g. https://crm.example.com/accounts/{{ payload.accountId }}">
          <Input value={request.url} spellCheck={false} onChange={(e) => setRequest({ url: e.target.value })} />
        </Field>
      </div>
      <fieldset className="http-headers">
        <legend>Headers</legend>
        {headersError ? (
          <p className="field-error" role="alert">
            {headersError}
          </p>
        ) : null}
        {rows.map(([name, value], i) => (
          // Rows are edited in place; their order is their identity here.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <div className="row" key={i}>
            <Field label="Header name">
              <Input
                value={name}
                spellCheck={false}
                onChange={(e) => setHeaders(rows.map((r, j) => (j === i ? [e.target.value, r[1]] : r)))}
              />
            </Field>
            <Field label="Header value" hint="Liquid; {{ vars.API_TOKEN }} for a secret, never logged">
              <Input
                value={value}
                spellCheck={false}
                onChange={(e) => setHeaders(rows.map((r, j) => (j === i ? [r[0], e.target.value] : r)))}
              />
            </Field>
            <Button
              variant="danger"
              aria-label={`Remove header ${name || i + 1}`}
              onClick={() => setHeaders(rows.filter((_, j) => j !== i))}
            >
              ✕
            </Button>
          </div>
        ))}
        <Button size="sm" onClick={() => setHeaders([...rows, ["", ""]])}>
          Add header
        </Button>
      </fieldset>
      {request.method !== "GET" ? (
        <Field label="Body" error={bodyError} hint="A JSON object is sent as JSON (string values are Liquid); other text as Liquid text">
          <Textarea
            className="code"
            rows={4}
            spellCheck={false}
            value={body}
            onChange={(e) => {
              setBody(e.target.value);
              setRequest({ body: parseBody(e.target.value) });
            }}
          />
        </Field>
      ) : null}
      <div className="row">
        <Field label="Timeout (ms)" error={timeoutError} hint="At most 15000; 10000 when empty">
          <Input
            type="number"
            min={100}
            max={15000}
            value={step.timeoutMs ?? ""}
            onChange={(e) => onChange({ ...step, timeoutMs: e.target.value === "" ? undefined : Math.trunc(Number(e.target.value)) })}
          />
        </Field>
        <Field label="When it fails" hint="After the last retry">
          <Select value={step.onError ?? "halt"} onChange={(e) => onChange({ ...step, onError: e.target.value as "halt" | "continue" })}>
            <option value="halt">Stop this recipient's run</option>
            <option value="continue">Go on to the next step</option>
          </Select>
        </Field>
      </div>
    </section>
  );
}
