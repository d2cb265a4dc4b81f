import type { ComponentProps } from "react";
import "./controls.css";
import { classNames } from "./class-names";

/**
 * A text-like input (text, number, date, url, search, colour). Inside a `<Field>` it gets its
 * id, `aria-invalid` and `aria-describedby` from the field.
 */
export function Input({ className, ...rest }: ComponentProps<"input">) {
  return <input className={classNames("control", className)} {...rest} />;
}

/** A checkbox: `<label><Checkbox checked={…} onChange={…} /> Text</label>`. */
export function Checkbox({ className, ...rest }: Omit<ComponentProps<"input">, "type">) {
  return <input type="checkbox" className={classNames("check", className)} {...rest} />;
}

/** One radio button of a group sharing a `name`. */
export function Radio({ className, ...rest }: Omit<ComponentProps<"input">, "type">) {
  return <input type="radio" className={classNames("check", className)} {...rest} />;
}
