// The status vocabularies of the API, with no imports: the D1 schema, the zod schemas and the
// dashboard bundle all read them from here.

/** What the D1 record of a trigger says about it. */
export const TRIGGER_STATUSES = ["accepted", "processing", "completed", "cancelled", "failed"] as const;
export type TriggerStatus = (typeof TRIGGER_STATUSES)[number];

/** A message's current status, and the status of each event in its timeline. */
export const MESSAGE_STATUSES = [
  "queued",
  "sending",
  "sent",
  "delivered",
  "opened",
  "clicked",
  "failed",
  "bounced",
  "undeliverable",
  "skipped",
  "cancelled",
  // In-app tracking: what the subscriber did in their Inbox.
  "seen",
  "read",
  "archived",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Statuses after which a message is never sent again: sent or beyond, or final without a send. */
export const SETTLED_MESSAGE_STATUSES = [
  "sent",
  "delivered",
  "opened",
  "clicked",
  "failed",
  "bounced",
  "undeliverable",
  "skipped",
  "cancelled",
] as const satisfies readonly MessageStatus[];

/** How one delivery attempt of an event to a webhook endpoint ended. */
export const ATTEMPT_STATUSES = ["succeeded", "failed"] as const;
