import { type ComponentProps, createElement } from "react";
import "./card.css";
import { classNames } from "./class-names";

type CardElement = "section" | "form" | "div";

/**
 * A panel of a page: a `<section>` by default (name it with aria-labelledby), a `<form>` when the
 * panel is one, or a plain `<div>`.
 */
export function Card<E extends CardElement = "section">({ as, className, ...rest }: { as?: E } & ComponentProps<E>) {
  return createElement(as ?? "section", { ...rest, className: classNames("card", className) });
}
