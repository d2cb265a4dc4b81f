import type { ComponentProps } from "react";
import "./table.css";
import { classNames } from "./class-names";

/**
 * A table of rows, scrolling sideways inside its own box rather than widening the page.
 * `className="stack"` turns it into one card per row on a phone, each cell under its column's
 * name (`data-label`); `busy` marks rows about to be replaced (a filter's next answer loading).
 */
export function Table({ className, busy, ...rest }: ComponentProps<"table"> & { busy?: boolean }) {
  return (
    <div className="table-wrap" aria-busy={busy || undefined}>
      <table className={classNames("table", className)} {...rest} />
    </div>
  );
}
