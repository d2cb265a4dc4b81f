import type { WebhookEndpoint } from "./queries";
import { Badge } from "../../ui/Badge";

const WHY_OFF: Record<NonNullable<WebhookEndpoint["disabledReason"]>, string> = {
  gone: "turned off: it answered 410 Gone",
  failing: "turned off: five days of failed attempts",
};

/** Enabled, or off, with the reason when Clarion turned it off itself. */
export function EndpointStatus({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.enabled) return <Badge tone="ok">enabled</Badge>;
  return (
    <Badge tone="warn" title={endpoint.disabledReason ? WHY_OFF[endpoint.disabledReason] : "turned off by hand"}>
      disabled{endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}
    </Badge>
  );
}

export const eventsLabel = (events: WebhookEndpoint["events"]) =>
  events === null ? "All events" : events.length <= 3 ? events.join(", ") : `${events.length} event types`;
