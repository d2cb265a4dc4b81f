// The outbound event types (Standard Webhooks), with no imports: the server, the OpenAPI document
// and the dashboard's event picker read them from here.

/**
 * Every event type an endpoint can subscribe to. The order is part of the stored ids (their type
 * index, see db/queries/fact-events.ts): add new types at the end.
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
  // In-app: what the subscriber did in their Inbox.
  "message.seen",
  "message.read",
  "message.archived",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
