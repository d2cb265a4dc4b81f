import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "../../ui/Badge";
import { Card } from "../../ui/Card";
import { type Column, DataList, fixedList } from "../../ui/DataList";

const STATUS_BADGE: Record<string, BadgeTone> = {
  added: "ok",
  changed: "warn",
  removed: "bad",
  unchanged: "",
  needs_value: "bad",
  present: "",
};
const STATUS_LABEL: Record<string, string> = { needs_value: "needs a value", present: "set in both" };

export function Status({ status }: { status: string }) {
  return <Badge tone={STATUS_BADGE[status] ?? ""}>{STATUS_LABEL[status] ?? status}</Badge>;
}

/** One part of the plan: a card with its title (and actions), a note, and a row per difference. */
export function PlanSection<T>({
  id,
  title,
  actions,
  note,
  rows,
  empty,
  columns,
  row,
  children,
}: {
  id: string;
  title: string;
  actions?: ReactNode;
  note?: string;
  rows: T[];
  empty: string;
  columns: Column[];
  row: (item: T) => ReactNode;
  children?: ReactNode;
}) {
  return (
    <Card aria-labelledby={id}>
      <div className="compare-head">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="actions">{actions}</div> : null}
      </div>
      {note ? <p className="muted small">{note}</p> : null}
      <DataList list={fixedList(rows)} what={title.toLowerCase()} empty={empty} compact columns={columns} row={row} />
      {children}
    </Card>
  );
}
