import { Slot } from "@radix-ui/react-slot";
import type { ComponentProps } from "react";
import "./button.css";
import { classNames } from "./class-names";

export type ButtonVariant = "default" | "primary" | "danger" | "ghost";
export type ButtonSize = "sm" | "md";

export interface ButtonProps extends ComponentProps<"button"> {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** A request it started is under way: disabled, with a spinner before its text. */
  loading?: boolean;
  /** Styles its one child (a router `<Link>`) as a button instead of drawing a `<button>`. */
  asChild?: boolean;
}

/**
 * Every button of the dashboard. `type` defaults to "button": a button that submits its form
 * says `type="submit"`.
 */
export function Button({
  variant = "default",
  size = "md",
  loading = false,
  asChild = false,
  className,
  type = "button",
  disabled,
  children,
  ...rest
}: ButtonProps) {
  const classes = classNames("button", variant !== "default" && variant, size === "sm" && "small-button", className);
  if (asChild) {
    return (
      <Slot className={classes} {...rest}>
        {children}
      </Slot>
    );
  }
  return (
    <button type={type} className={classes} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading ? <span className="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}
