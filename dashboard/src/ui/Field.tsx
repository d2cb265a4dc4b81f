import { type ReactElement, cloneElement, useId } from "react";

/**
 * A labelled control with its error below it. The control gets the id, `aria-invalid` and
 * `aria-describedby`, so the error is read out with it: `<Field label="Key" error={e}><Input/></Field>`.
 */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: ReactElement<Record<string, unknown>>;
}) {
  const generated = useId();
  // A control with an id of its own (one a link or a test names) keeps it.
  const id = typeof children.props.id === "string" ? children.props.id : generated;
  const described = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  // Without an error of its own, the control's aria-invalid (a pair of fields wrong together) stands.
  const invalid = error ? true : children.props["aria-invalid"];
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, "aria-invalid": invalid, "aria-describedby": described ?? children.props["aria-describedby"] })}
      {hint ? (
        <span id={`${id}-hint`} className="field-hint">
          {hint}
        </span>
      ) : null}
      {error ? (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
