// The outbound event types (Standard Webhooks), with no imports: the server, the OpenAPI document
// and the dashboard's event picker read them from here.

/**
 * Every event type an endpoint can subscribe to. `message.read`, `message.seen` and
 * `message.archived` join this list with the in-app channel.
 */
export const EVENT_TYPES = [
  "message.sent",
  "message.delivered",
  "message.failed",
  "message.bounced",
  "message.opened",
  "message.clicked",
  "message.skipped",
  "trigger.completed",
  "trigger.cancelled",
  "subscriber.created",
  "subscriber.updated",
  "subscriber.deleted",
  "suppression.added",
  "endpoint.disabled",
  "webhook.test",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
