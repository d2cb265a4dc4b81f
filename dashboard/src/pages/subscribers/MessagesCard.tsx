import { CURSOR_PAGES } from "../../api/cursor-pages";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";
import { Loading } from "../../ui/Loading";
import { ProblemView } from "../../ui/ProblemView";
import { MoreButton } from "../../ui/MoreButton";

type Status = components["schemas"]["Message"]["status"];

const TONE: Record<Status, string> = {
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
  const list = useInfiniteQuery({
    queryKey: ["messages", { subscriberId }],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/messages", { params: { query: { subscriberId, cursor: pageParam, limit: 20 } } })),
    ...CURSOR_PAGES,
  });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <section className="card" aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      {list.error ? <ProblemView error={list.error} /> : null}
      {list.isPending ? (
        <Loading what="messages" />
      ) : rows.length === 0 ? (
        <p className="muted">No messages to this subscriber yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Workflow</th>
                <th>Channel</th>
                <th>Status</th>
                <th>Subject or preview</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id} data-message={m.id}>
                  <td className="sub-nowrap">
                    <Link to={`/activity/messages/${encodeURIComponent(m.id)}`}>{new Date(m.createdAt).toLocaleString()}</Link>
                  </td>
                  <td>
                    <code>{m.workflow}</code>
                  </td>
                  <td>{m.channel}</td>
                  <td>
                    <span className={`badge ${TONE[m.status]}`}>{m.status}</span>
                  </td>
                  <td className="sub-clip">{m.subject ?? m.preview ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} label="More messages" className="sub-more" />
    </section>
  );
}
