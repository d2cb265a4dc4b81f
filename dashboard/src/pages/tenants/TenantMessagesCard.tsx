import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import { Card } from "../../ui/Card";
import { DataList } from "../../ui/DataList";
import { formatTime, StatusBadge } from "../activity/status";
import { tenantMessagesQuery } from "./queries";

/** The tenant's latest messages, newest first, each opening in Activity; the whole list is Activity filtered by the tenant. */
export function TenantMessagesCard({ tenantId }: { tenantId: string }) {
  const api = useApi();
  const list = useInfiniteQuery(tenantMessagesQuery(api, tenantId));
  return (
    <Card aria-labelledby="tenant-messages-title">
      <h2 id="tenant-messages-title">Recent messages</h2>
      <p className="muted small">
        <Link to={`/activity?tenant=${encodeURIComponent(tenantId)}`}>All of them in Activity</Link>
      </p>
      <DataList
        list={list}
        what="messages"
        empty="No messages for this tenant yet."
        compact
        more="More messages"
        columns={["When", "Subscriber", "Workflow", "Channel", "Status", "Integration"]}
        row={(m) => (
          <tr key={m.id} data-message={m.id}>
            <td className="tenant-nowrap">
              <Link to={`/activity/messages/${encodeURIComponent(m.id)}`}>{formatTime(m.createdAt)}</Link>
            </td>
            <td>
              <code>{m.subscriberId}</code>
            </td>
            <td>
              <code>{m.workflow}</code>
            </td>
            <td>{m.channel}</td>
            <td>
              <StatusBadge status={m.status} />
            </td>
            <td>{m.provider ?? <span className="muted">—</span>}</td>
          </tr>
        )}
      />
    </Card>
  );
}
