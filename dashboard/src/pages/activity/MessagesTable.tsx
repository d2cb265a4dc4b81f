import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import type { Filters } from "./filters";
import { messagesQuery } from "./queries";
import { LIVE_INTERVAL } from "./live";
import { LiveList } from "./LiveList";
import { formatTime, StatusBadge } from "./status";
import { typeLabel } from "../../ui/labels";

/** Messages matching the filters, newest first, asked for again every couple of seconds. */
export function MessagesTable({ filters }: { filters: Filters }) {
  const api = useApi();
  const list = useInfiniteQuery({ ...messagesQuery(api, filters), refetchInterval: LIVE_INTERVAL });
  return (
    <LiveList
      label="Messages"
      list={list}
      empty={filters.status ? `No ${filters.status} messages.` : "No messages yet. Trigger a workflow to see its messages here."}
      columns={["Created", "Status", "Workflow · step", "Subscriber", "Channel", "To", "Subject"]}
      row={(m) => (
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
            {typeLabel(m.channel)}
            {m.provider ? <div className="muted small">{m.provider}</div> : null}
          </td>
          <td data-label="To">{m.to ?? "—"}</td>
          <td data-label="Subject" className="ellipsis">
            {m.subject ?? m.preview ?? ""}
          </td>
        </tr>
      )}
    />
  );
}
