import { useInfiniteQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { useState } from "react";
import { DataList } from "../../ui/DataList";
import { answerOf } from "./AttemptResult";
import { EventCell } from "./EventCell";
import { type AttemptStatus, attemptsQuery } from "./queries";
import { Select } from "../../ui/Select";
import { Badge } from "../../ui/Badge";
import { Field } from "../../ui/Field";

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

/** Every try of every event at this endpoint, newest first, to see what failed and when the next try is due. */
export function AttemptsTable({ id }: { id: string }) {
  const api = useApi();
  const [status, setStatus] = useState<AttemptStatus | undefined>(undefined);
  const list = useInfiniteQuery({ ...attemptsQuery(api, id, status), refetchInterval: 5_000 });
  return (
    <section aria-labelledby="attempts-title">
      <div className="section-header">
        <h2 id="attempts-title">Delivery attempts</h2>
        <Field label="Status">
          <Select value={status ?? ""} onChange={(e) => setStatus((e.target.value || undefined) as AttemptStatus | undefined)}>
            <option value="">All attempts</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
          </Select>
        </Field>
      </div>
      <DataList
        list={list}
        what="attempts"
        empty={status ? `No ${status} attempts.` : "No attempts yet: send a test, or wait for an event."}
        className="attempts"
        columns={["When", "Event", "Try", "Status", "Answer", "Latency", "Error", "Next try"]}
        row={(a) => (
          <tr key={a.id} data-attempt={a.id} data-event={a.eventId} data-status={a.status}>
            <td className="nowrap">{when(a.createdAt)}</td>
            <EventCell type={a.eventType} id={a.eventId} />
            <td>{a.attempt}</td>
            <td>
              <Badge tone={a.status === "succeeded" ? "ok" : "bad"}>{a.status}</Badge>
            </td>
            <td className="nowrap">{answerOf(a)}</td>
            <td className="nowrap">{a.latencyMs} ms</td>
            <td className="small attempt-error">{a.error ?? ""}</td>
            <td className="nowrap">{when(a.nextAttemptAt)}</td>
          </tr>
        )}
      />
    </section>
  );
}
