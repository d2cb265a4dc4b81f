import { type ReactNode, useId, useState } from "react";
import { Button } from "../../ui/Button";
import { classNames } from "../../ui/class-names";

/**
 * A chart with the table of its figures. The drawing is hidden from screen readers, which read
 * the table instead: it is always in the accessibility tree, visually hidden until "Show table"
 * (for a reader who wants the exact numbers, or a screen too narrow for the chart's labels).
 */
export function ChartFigure({
  title,
  description,
  chart,
  table,
  testId,
}: {
  title: string;
  description?: string;
  chart: ReactNode;
  table: ReactNode;
  testId?: string;
}) {
  const [shown, setShown] = useState(false);
  const tableId = useId();
  const titleId = useId();
  return (
    <figure className="analytics-figure" aria-labelledby={titleId} data-chart={testId}>
      <div className="analytics-figure-head">
        <figcaption id={titleId}>
          <strong>{title}</strong>
          {description ? <span className="muted small"> {description}</span> : null}
        </figcaption>
        <Button size="sm" variant="ghost" aria-controls={tableId} aria-expanded={shown} onClick={() => setShown(!shown)}>
          {shown ? "Hide table" : "Show table"}
        </Button>
      </div>
      <div className="analytics-chart" aria-hidden="true">
        {chart}
      </div>
      <div id={tableId} className={classNames("analytics-table", !shown && "visually-hidden")} data-chart-table={testId}>
        {table}
      </div>
    </figure>
  );
}
