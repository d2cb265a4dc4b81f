import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/context";
import { Loading } from "../../ui/Loading";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import "./activity.css";
import { eventLines } from "./event-lines";
import { LIVE_INTERVAL, LiveIndicator } from "./live";
import { messageDetailQuery } from "./queries";
import { formatTime, StatusBadge } from "./status";
import { subscriberPath } from "../subscribers/search";
import { typeLabel } from "../../ui/labels";

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** One message: where it went, what happened to it (its timeline) and what it said. */
export function MessagePage() {
  const { id = "" } = useParams();
  const api = useApi();
  const message = useQuery({ ...messageDetailQuery(api, id), refetchInterval: LIVE_INTERVAL });
  const m = message.data;
  return (
    <>
      <PageHeader title={m ? (m.subject ?? m.preview ?? m.id) : "Message"}>
        <LiveIndicator updatedAt={message.dataUpdatedAt} failed={message.isRefetchError} />
      </PageHeader>
      <p>
        <Link to="/activity?tab=messages">← Messages</Link>
      </p>
      {message.error ? <ProblemView error={message.error} /> : null}
      {message.isPending ? <Loading what="the message" /> : null}
      {m ? (
        <div className="message-detail">
          <p className="muted">
            <code>{m.id}</code>
          </p>
          {m.error ? (
            <div className="problem">
              <strong>{m.error.code}</strong>
              <p>{m.error.message}</p>
            </div>
          ) : null}
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={m.status} />
            </dd>
            <dt>Workflow</dt>
            <dd>
              <Link to={`/workflows/${encodeURIComponent(m.workflow)}`}>{m.workflow}</Link> · step {m.stepId}
            </dd>
            {/* The versions its trigger was accepted with: what it was rendered from, whatever changed since. */}
            <dt>Workflow version</dt>
            <dd data-testid="workflow-version">{m.workflowVersion ?? "—"}</dd>
            <dt>Layout version</dt>
            <dd data-testid="layout-version">{m.layoutVersion ?? "none"}</dd>
            <dt>Channel</dt>
            <dd>
              {typeLabel(m.channel)}
              {m.provider ? ` via ${m.provider}` : ""}
            </dd>
            <dt>Subscriber</dt>
            <dd>
              <Link to={subscriberPath(m.subscriberId)}>{m.subscriberId}</Link>
            </dd>
            <dt>To</dt>
            <dd>{m.to ?? "—"}</dd>
            <dt>Trigger</dt>
            <dd>
              <Link to={`/activity/triggers/${encodeURIComponent(m.transactionId)}`}>
                <code>{m.transactionId}</code>
              </Link>
            </dd>
            <dt>Attempts</dt>
            <dd>{m.attempts}</dd>
            {m.providerMessageId ? (
              <>
                <dt>Provider id</dt>
                <dd>
                  <code>{m.providerMessageId}</code>
                </dd>
              </>
            ) : null}
          </dl>
          <h2>Timeline</h2>
          {m.events.length ? (
            <ol className="timeline" data-testid="timeline">
              {m.events.map((e) => (
                <li key={`${e.at}:${e.status}:${JSON.stringify(e.detail)}`} data-status={e.status}>
                  <StatusBadge status={e.status} />
                  <time dateTime={e.at}>{formatTime(e.at)}</time>
                  {e.detail && Object.keys(e.detail).length ? (
                    <>
                      <dl className="event-lines small">
                        {eventLines(e.detail).map((line) => (
                          <div key={line.label}>
                            <dt>{line.label}</dt>
                            <dd>{line.value}</dd>
                          </div>
                        ))}
                      </dl>
                      <details className="event-json">
                        <summary>JSON</summary>
                        <pre className="small">{pretty(e.detail)}</pre>
                      </details>
                    </>
                  ) : null}
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">No events recorded yet.</p>
          )}
          {m.content ? (
            <details>
              <summary>Content</summary>
              <pre>{pretty(m.content)}</pre>
            </details>
          ) : null}
        </div>
      ) : null}
    </>
  );
}
