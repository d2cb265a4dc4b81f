import { CURSOR_PAGES } from "../../api/cursor-pages";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import { type Filters, messageQuery } from "./filters";
import { LIVE_INTERVAL } from "./live";
import { LiveList } from "./LiveList";
import { formatTime, StatusBadge } from "./status";

/** Messages matching the filters, newest first, asked for again every couple of seconds. */
export function MessagesTable({ filters }: { filters: Filters }) {
  const list = useInfiniteQuery({
    queryKey: ["activity", "messages", filters],
    queryFn: ({ pageParam }) =>
      unwrap(api.GET("/v1/messages", { params: { query: { ...messageQuery(filters), cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
    refetchInterval: LIVE_INTERVAL,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <LiveList
      label="Messages"
      list={list}
      count={rows.length}
      empty={filters.status ? `No ${filters.status} messages.` : "No messages yet. Trigger a workflow to see its messages here."}
    >
      <table className="stack">
        <thead>
          <tr>
            <th>Created</th>
            <th>Status</th>
            <th>Workflow · step</th>
            <th>Subscriber</th>
            <th>Channel</th>
            <th>To</th>
            <th>Subject</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.id} data-message={m.id} data-step={m.stepId} data-transaction={m.transactionId}>
              <td data-label="Created" className="nowrap">
                <Link to={`/activity/messages/${encodeURIComponent(m.id)}`} title={m.createdAt}>
                  {formatTime(m.createdAt)}
                </Link>
              </td>
              <td data-label="Status">
                <StatusBadge status={m.status} />
              </td>
              <td data-label="Workflow · step">
                {m.workflow}
                <div className="muted small">{m.stepId}</div>
              </td>
              <td data-label="Subscriber">{m.subscriberId}</td>
              <td data-label="Channel">
                {m.channel}
                {m.provider ? <div className="muted small">{m.provider}</div> : null}
              </td>
              <td data-label="To">{m.to ?? "—"}</td>
              <td data-label="Subject" className="ellipsis">
                {m.subject ?? m.preview ?? ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </LiveList>
  );
}
