import type { ReactNode } from "react";
import { type Column, DataList, type ListQuery } from "../../ui/DataList";
import { LiveIndicator } from "./live";

/** An Activity list: the live dot above the dashboard's list frame. */
export function LiveList<T>({
  label,
  list,
  empty,
  columns,
  row,
}: {
  label: string;
  list: ListQuery<T> & { dataUpdatedAt: number; isRefetchError: boolean };
  empty: ReactNode;
  columns: Column[];
  row: (item: T) => ReactNode;
}) {
  return (
    <section aria-label={label}>
      <div className="activity-bar">
        <LiveIndicator updatedAt={list.dataUpdatedAt} failed={list.isRefetchError} />
      </div>
      <DataList list={list} what={label.toLowerCase()} empty={empty} className="stack" columns={columns} row={row} />
    </section>
  );
}
