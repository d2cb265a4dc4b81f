import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/context";
import type { components } from "../../api/openapi";
import { DataList } from "../../ui/DataList";
import { subscriberMessagesQuery } from "./queries";
import { Badge, type BadgeTone } from "../../ui/Badge";
import { Card } from "../../ui/Card";

type Status = components["schemas"]["Message"]["status"];

const TONE: Record<Status, BadgeTone> = {
  queued: "info",
  sending: "info",
  sent: "ok",
  delivered: "ok",
  opened: "ok",
  clicked: "ok",
  failed: "bad",
  bounced: "bad",
  undeliverable: "bad",
  skipped: "",
  cancelled: "",
  seen: "ok",
  read: "ok",
  archived: "",
};

/** The subscriber's latest messages, newest first, each opening in Activity. */
export function MessagesCard({ subscriberId }: { subscriberId: string }) {
  const api = useApi();
  const list = useInfiniteQuery(subscriberMessagesQuery(api, subscriberId));

  return (
    <Card aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      <DataList
        list={list}
        what="messages"
        empty="No messages to this subscriber yet."
        compact
        more="More messages"
        moreClassName="sub-more"
        columns={["When", "Workflow", "Channel", "Status", "Subject or preview"]}
        row={(m) => (
          <tr key={m.id} data-message={m.id}>
            <td className="sub-nowrap">
              <Link to={`/activity/messages/${encodeURIComponent(m.id)}`}>{new Date(m.createdAt).toLocaleString()}</Link>
            </td>
            <td>
              <code>{m.workflow}</code>
            </td>
            <td>{m.channel}</td>
            <td>
              <Badge tone={TONE[m.status]}>{m.status}</Badge>
            </td>
            <td className="sub-clip">{m.subject ?? m.preview ?? <span className="muted">—</span>}</td>
          </tr>
        )}
      />
    </Card>
  );
}
