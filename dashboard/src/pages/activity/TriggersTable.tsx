import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import type { Filters } from "./filters";
import { triggersQuery } from "./queries";
import { LIVE_INTERVAL } from "./live";
import { LiveList } from "./LiveList";
import { formatTime, StatusBadge } from "./status";

/** Recent triggers matching the filters, newest first, asked for again every couple of seconds. */
export function TriggersTable({ filters }: { filters: Filters }) {
  const api = useApi();
  const list = useInfiniteQuery({ ...triggersQuery(api, filters), refetchInterval: LIVE_INTERVAL });
  return (
    <LiveList
      label="Triggers"
      list={list}
      empty={filters.status ? `No ${filters.status} triggers.` : "No triggers yet."}
      columns={["Accepted", "Status", "Workflow", "Recipients", "Transaction"]}
      row={(t) => (
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
      )}
    />
  );
}
