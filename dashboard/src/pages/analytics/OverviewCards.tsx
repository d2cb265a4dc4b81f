import { classNames } from "../../ui/class-names";
import { change, count, pointsChange, rate } from "./format";

/** One figure of the period beside the same figure of the period before it. */
export interface CardFigure {
  key: string;
  label: string;
  kind: "count" | "rate";
  value: number | null;
  previous: number | null;
  /** Whether a rise is good news (deliveries) or bad (failures); counts of volume are neither. */
  better?: "up" | "down";
}

function delta(figure: CardFigure) {
  const moved = figure.kind === "rate" ? pointsChange(figure.value, figure.previous) : change(figure.value ?? 0, figure.previous ?? 0);
  const tone = figure.better === undefined || moved.direction === "flat" ? undefined : moved.direction === figure.better ? "good" : "bad";
  return { ...moved, tone };
}

/** The period's totals and rates as cards, each with its change against the previous period of the same length. */
export function OverviewCards({ figures }: { figures: CardFigure[] }) {
  return (
    <ul className="analytics-cards" aria-label="Totals and rates, with the change against the previous period">
      {figures.map((figure) => {
        const moved = delta(figure);
        const shown = figure.kind === "rate" ? rate(figure.value) : count(figure.value ?? 0);
        const before = figure.kind === "rate" ? rate(figure.previous) : count(figure.previous ?? 0);
        return (
          <li key={figure.key} className="analytics-card" data-card={figure.key}>
            <span className="label">{figure.label}</span>
            <span className="value" data-value>
              {shown}
            </span>
            <span className={classNames("delta", moved.tone)} data-change={moved.direction}>
              {moved.text} <span className="muted">vs previous ({before})</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}
