import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { EVENT_TYPES } from "../../../../src/contract/event-types";
import { Loading } from "../../ui/Loading";
import { MoreButton } from "../../ui/MoreButton";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { type EventType, eventsQuery, resendEvent } from "./queries";
import "./webhooks.css";

/** The environment's events, newest first, as endpoints receive them; one can be sent again to every endpoint that takes it. */
export function EventLogPage() {
  const [type, setType] = useState<EventType | undefined>(undefined);
  const list = useInfiniteQuery(eventsQuery(type));
  const resend = useMutation({ mutationFn: resendEvent });
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <>
      <PageHeader title="Event log">
        <Link to="/webhooks">Endpoints</Link>
      </PageHeader>
      <p className="muted">
        What was sent, or would have been, to this environment's endpoints, kept for the retention period. Resend queues an event again,
        with its id, to every enabled endpoint that takes its type.
      </p>
      <div className="filters">
        <label className="field">
          Type
          <select value={type ?? ""} onChange={(e) => setType((e.target.value || undefined) as EventType | undefined)}>
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error ? <ProblemView error={list.error} /> : null}
      {resend.error ? <ProblemView error={resend.error} /> : null}
      {resend.data ? (
        <p role="status" data-testid="resend-result">
          <code>{resend.variables}</code>: queued to {resend.data.queued === 1 ? "1 endpoint" : `${resend.data.queued} endpoints`}.
        </p>
      ) : null}
      {list.isPending ? (
        <Loading what="events" />
      ) : rows.length === 0 ? (
        <p className="empty muted">{type ? `No ${type} events.` : "No events yet."}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Type</th>
                <th>Data</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((event) => (
                <tr key={event.id} data-event={event.id}>
                  <td className="nowrap">{new Date(event.timestamp).toLocaleString()}</td>
                  <td>
                    <code>{event.type}</code>
                    <div className="muted small">
                      <code>{event.id}</code>
                    </div>
                  </td>
                  <td className="event-data">
                    <code className="small">{JSON.stringify(event.data)}</code>
                  </td>
                  <td>
                    <button
                      type="button"
                      onClick={() => resend.mutate(event.id)}
                      disabled={resend.isPending}
                      aria-label={`Resend ${event.id}`}
                    >
                      Resend
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
    </>
  );
}
