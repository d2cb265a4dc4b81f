import { CURSOR_PAGES } from "../../api/cursor-pages";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import { type Filters, triggerQuery } from "./filters";
import { LIVE_INTERVAL } from "./live";
import { LiveList } from "./LiveList";
import { formatTime, StatusBadge } from "./status";

/** Recent triggers matching the filters, newest first, asked for again every couple of seconds. */
export function TriggersTable({ filters }: { filters: Filters }) {
  const list = useInfiniteQuery({
    queryKey: ["activity", "triggers", filters],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/triggers", { params: { query: { ...triggerQuery(filters), cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
    refetchInterval: LIVE_INTERVAL,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <LiveList
      label="Triggers"
      list={list}
      count={rows.length}
      empty={filters.status ? `No ${filters.status} triggers.` : "No triggers yet."}
    >
      <table className="stack">
        <thead>
          <tr>
            <th>Accepted</th>
            <th>Status</th>
            <th>Workflow</th>
            <th>Recipients</th>
            <th>Transaction</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.transactionId} data-transaction={t.transactionId}>
              <td data-label="Accepted" className="nowrap">
                <Link to={`/activity/triggers/${encodeURIComponent(t.transactionId)}`}>{formatTime(t.acceptedAt)}</Link>
              </td>
              <td data-label="Status">
                <StatusBadge status={t.status} />
              </td>
              <td data-label="Workflow">{t.workflow}</td>
              <td data-label="Recipients">
                {t.recipients.join(", ")}
                {t.recipientCount > t.recipients.length ? <span className="muted"> +{t.recipientCount - t.recipients.length}</span> : null}
              </td>
              <td data-label="Transaction">
                <code>{t.transactionId}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </LiveList>
  );
}
