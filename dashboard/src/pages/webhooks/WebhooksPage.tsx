import { useMutation, useQuery } from "@tanstack/react-query";
import { useApi } from "../../api/context";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError } from "../../api/problem";
import { Field } from "../../ui/Field";
import { DataList } from "../../ui/DataList";
import { PageHeader } from "../../ui/PageHeader";
import { ProblemView } from "../../ui/ProblemView";
import { standingError } from "../../ui/standing-errors";
import { retrySchedulePhrase } from "../../../../src/contract/webhook-retries";
import { EndpointStatus, eventsLabel } from "./EndpointStatus";
import { EventTypePicker } from "./EventTypePicker";
import { createEndpointMutation, type EventType, endpointsQuery } from "./queries";
import { andThen } from "../../api/mutations";
import "./webhooks.css";
import { Button } from "../../ui/Button";
import { Input } from "../../ui/Input";
import { Card } from "../../ui/Card";

/** The environment's webhook endpoints, and a form to add one. */
export function WebhooksPage() {
  const api = useApi();
  const navigate = useNavigate();
  const list = useQuery(endpointsQuery(api));
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<EventType[] | null>(null);
  const body = { url: url.trim(), description: description.trim() || null, events, enabled: true };
  const create = useMutation(andThen(createEndpointMutation(api), (created) => navigate(`/webhooks/${encodeURIComponent(created.id)}`)));
  const error = standingError(create.error, create.variables, body);
  const fieldError = (path: string) => (error instanceof ApiError ? error.fieldError(path) : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(body);
  }

  return (
    <>
      <PageHeader title="Webhooks">
        <Link to="/webhooks/events">Event log</Link>
      </PageHeader>
      <p className="muted">
        Clarion POSTs this environment's events (messages sent, delivered, bounced…, triggers completed, subscribers changed) to your
        endpoints, signed per Standard Webhooks, retried on failure ({retrySchedulePhrase()}). Order between events is not promised.
      </p>
      <div className="webhooks-grid">
        <section aria-labelledby="endpoints-title">
          <h2 id="endpoints-title">Endpoints</h2>
          <DataList
            list={list}
            what="endpoints"
            empty="No endpoint yet: add the first one."
            columns={["URL", "Events", "Status", "Created"]}
            row={(endpoint) => (
              <tr key={endpoint.id} data-endpoint={endpoint.id}>
                <td className="endpoint-url">
                  <Link to={`/webhooks/${encodeURIComponent(endpoint.id)}`}>{endpoint.url}</Link>
                  {endpoint.description ? <div className="muted small">{endpoint.description}</div> : null}
                </td>
                <td className="small">{eventsLabel(endpoint.events)}</td>
                <td>
                  <EndpointStatus endpoint={endpoint} />
                </td>
                <td className="nowrap">{new Date(endpoint.createdAt).toLocaleString()}</td>
              </tr>
            )}
          />
        </section>
        <Card as="form" onSubmit={submit} aria-labelledby="new-endpoint-title">
          <h2 id="new-endpoint-title">New endpoint</h2>
          <Field
            label="URL"
            error={fieldError("url")}
            hint="https:// to a public host, port 443 or 8443: Clarion refuses private and local addresses. No user:password@ in it: your receiver verifies the signing secret instead."
          >
            <Input
              type="url"
              value={url}
              placeholder="https://example.com/clarion/events"
              onChange={(e) => setUrl(e.target.value)}
              required
              spellCheck={false}
            />
          </Field>
          <Field label="Description (optional)" error={fieldError("description")}>
            <Input value={description} maxLength={512} placeholder="CRM sync" onChange={(e) => setDescription(e.target.value)} />
          </Field>
          <EventTypePicker value={events} onChange={setEvents} error={fieldError("events")} />
          {error && !fieldError("url") && !fieldError("description") && !fieldError("events") ? <ProblemView error={error} /> : null}
          <Button type="submit" variant="primary" disabled={create.isPending || !url.trim() || events?.length === 0}>
            Add endpoint
          </Button>
        </Card>
      </div>
    </>
  );
}
