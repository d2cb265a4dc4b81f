import type { ComponentProps } from "react";
import "./badge.css";
import { classNames } from "./class-names";

/** What a status means to a reader: fine, needs a look, failed, informative, or neither ("" or none). */
export type BadgeTone = "ok" | "warn" | "bad" | "info" | "";

/** A short status in a pill: `<Badge tone="ok">delivered</Badge>`. */
export function Badge({ tone, className, ...rest }: ComponentProps<"span"> & { tone?: BadgeTone }) {
  return <span className={classNames("badge", tone, className)} {...rest} />;
}
