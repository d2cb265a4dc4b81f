import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { useState } from "react";
import { Link } from "react-router";
import { EVENT_TYPES } from "../../../../src/contract/event-types";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { EventCell } from "./EventCell";
import { type EventType, eventsQuery, resendEvent } from "./queries";
import "./webhooks.css";
import { Button } from "../../ui/Button";
import { Select } from "../../ui/Select";
import { Field } from "../../ui/Field";

/** The environment's events, newest first, as endpoints receive them; one can be sent again to every endpoint that takes it. */
export function EventLogPage() {
  const [type, setType] = useState<EventType | undefined>(undefined);
  const api = useApi();
  const list = useInfiniteQuery(eventsQuery(api, type));
  const resend = useMutation({ mutationFn: (eventId: string) => resendEvent(api, eventId) });
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
        <Field label="Type">
          <Select value={type ?? ""} onChange={(e) => setType((e.target.value || undefined) as EventType | undefined)}>
            <option value="">All types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      {resend.error ? <ProblemView error={resend.error} /> : null}
      {resend.data ? (
        <p role="status" data-testid="resend-result">
          <code>{resend.variables}</code>: queued to {resend.data.queued === 1 ? "1 endpoint" : `${resend.data.queued} endpoints`}.
        </p>
      ) : null}
      <DataList
        list={list}
        what="events"
        empty={type ? `No ${type} events.` : "No events yet."}
        columns={["When", "Type", "Data", { label: "Actions" }]}
        row={(event) => (
          <tr key={event.id} data-event={event.id}>
            <td className="nowrap">{new Date(event.timestamp).toLocaleString()}</td>
            <EventCell type={event.type} id={event.id} />
            <td className="event-data">
              <code className="small">{JSON.stringify(event.data)}</code>
            </td>
            <td>
              <Button type="button" onClick={() => resend.mutate(event.id)} disabled={resend.isPending} aria-label={`Resend ${event.id}`}>
                Resend
              </Button>
            </td>
          </tr>
        )}
      />
    </>
  );
}
