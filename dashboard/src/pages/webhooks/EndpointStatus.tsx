import type { WebhookEndpoint } from "./queries";

const WHY_OFF: Record<NonNullable<WebhookEndpoint["disabledReason"]>, string> = {
  gone: "turned off: it answered 410 Gone",
  failing: "turned off: five days of failed attempts",
};

/** Enabled, or off, with the reason when Clarion turned it off itself. */
export function EndpointStatus({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.enabled) return <span className="badge ok">enabled</span>;
  return (
    <span className="badge warn" title={endpoint.disabledReason ? WHY_OFF[endpoint.disabledReason] : "turned off by hand"}>
      disabled{endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}
    </span>
  );
}

export const eventsLabel = (events: WebhookEndpoint["events"]) =>
  events === null ? "All events" : events.length <= 3 ? events.join(", ") : `${events.length} event types`;
