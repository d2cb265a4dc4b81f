import type { ComponentProps } from "react";
import "./controls.css";
import { classNames } from "./class-names";

/** A multi-line text field; `className="code"` for JSON and templates in the monospace face. */
export function Textarea({ className, ...rest }: ComponentProps<"textarea">) {
  return <textarea className={classNames("control", className)} {...rest} />;
}
