import type { ComponentProps } from "react";
import "./controls.css";
import { classNames } from "./class-names";

/** The browser's own select, styled: its options are `<option>` children. */
export function Select({ className, ...rest }: ComponentProps<"select">) {
  return <select className={classNames("control", className)} {...rest} />;
}
