import type { ReactNode } from "react";
import { Loading } from "../../ui/Loading";
import { MoreButton } from "../../ui/MoreButton";
import { ProblemView } from "../../ui/ProblemView";
import { LiveIndicator } from "./live";

/** What an Activity list shows around its table: the live dot, a problem, loading, the empty text, and More. */
export function LiveList({
  label,
  list,
  count,
  empty,
  children,
}: {
  label: string;
  list: {
    dataUpdatedAt: number;
    isRefetchError: boolean;
    error: unknown;
    isPending: boolean;
    hasNextPage: boolean;
    isFetchingNextPage: boolean;
    fetchNextPage: () => unknown;
  };
  count: number;
  empty: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-label={label}>
      <div className="activity-bar">
        <LiveIndicator updatedAt={list.dataUpdatedAt} failed={list.isRefetchError} />
      </div>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what={label.toLowerCase()} />
      ) : count === 0 ? (
        <p className="empty muted">{empty}</p>
      ) : (
        <div className="table-wrap">{children}</div>
      )}
      <MoreButton list={list} />
    </section>
  );
}
