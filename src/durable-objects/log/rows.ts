import type { SerializedStatement } from "../../db/batch";
import type { MessageFact } from "../../db/queries/fact-events";
import type { IndexedMessage, IndexedStatus } from "./trigger-index";
import type { MessageStatus } from "../../contract/statuses";

/** A message as the log holds it: times are epoch milliseconds, so it crosses RPC as it is stored. */
export interface LogMessage {
  id: string;
  environmentId: string;
  transactionId: string;
  subscriberId: string;
  workflowKey: string;
  stepId: string;
  channel: string;
  provider: string | null;
  integrationId: string | null;
  status: MessageStatus;
  providerMessageId: string | null;
  to: string | null;
  subject: string | null;
  preview: string | null;
  content: Record<string, unknown> | null;
  errorCode: string | null;
  errorMessage: string | null;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  /**
   * The workflow version its trigger was accepted with, kept on the row so a page of messages
   * needs no read of their triggers; null in rows from before it was kept (read from the trigger).
   */
  workflowVersion?: number | null;
  /** The version of the layout its email was wrapped in; null when none applied (or before it was kept). */
  layoutVersion?: number | null;
  /** The trigger's tenant; null without one (or before it was kept). */
  tenantId?: string | null;
  /**
   * A wait step of its workflow watches this message's step: its seen/read/opened/clicked/delivered
   * wake the wait in the trigger's home. Set when the message is written, so a status report on a
   * message nothing waits for costs no call to that object.
   */
  watched?: boolean;
  /** The trigger's other context keys, by key: the id given. */
  context?: Record<string, string> | null;
}

/** One entry of a message's timeline. */
export interface LogEvent {
  id: string;
  environmentId: string;
  messageId: string;
  status: MessageStatus;
  at: number;
  detail: Record<string, unknown> | null;
}

/** Columns a later phase sets on a message (a send's result, a provider's report); absent ones stay. */
export type MessageChanges = Partial<
  Pick<
    LogMessage,
    | "status"
    | "provider"
    | "integrationId"
    | "providerMessageId"
    | "to"
    | "subject"
    | "preview"
    | "content"
    | "errorCode"
    | "errorMessage"
    | "attempts"
    | "updatedAt"
  >
>;

/** Where a provider's message id leads: kept in the shard of the provider id's hash, as the provider's reports carry only it. */
export interface ProviderRef {
  providerMessageId: string;
  environmentId: string;
  messageId: string;
}

/**
 * What one phase of delivery (or one report) writes to one shard, applied in one transaction:
 * new messages (a send identity already present keeps its row), changes, timeline entries, refs.
 */
export interface LogWrite {
  inserts?: LogMessage[];
  updates?: { id: string; changes: MessageChanges }[];
  events?: LogEvent[];
  refs?: ProviderRef[];
  /** In-app notifications, with their messages (a message whose send identity was stored already lends its id). */
  feed?: FeedRow[];
  /** What the sandbox providers captured of this shard's messages (captures-table.ts). */
  captures?: LogCapture[];
  /** Messages of triggers whose shard this is (trigger-index.ts): new ones, and new statuses. */
  indexed?: IndexedMessage[];
  indexedStatus?: IndexedStatus[];
  /**
   * The phase's D1 half, kept with these rows (d1-outbox.ts): the facts of this shard's messages,
   * whose events the shard describes, and statements that need no description (in one shard of the phase).
   */
  outbox?: { statements: SerializedStatement[]; facts: MessageFact[] };
  /**
   * false: the writer reads no description of the messages back (its phase reports no message
   * events: no endpoint takes them), so the answer's `described` is left empty. The outbox's facts
   * are described all the same. A 10,000-member topic's descriptions were about 2.6 MB of JSON,
   * written by the shards and parsed by the consumer, for nothing.
   */
  describe?: boolean;
}

/** One send a sandbox provider captured: what the provider would have been given. Times in epoch ms. */
export interface LogCapture {
  id: string;
  environmentId: string;
  messageId: string;
  channel: string;
  provider: string;
  to: string;
  content: Record<string, unknown>;
  createdAt: number;
}

/** What an outbound event says of the message it reports, as the write left it. */
export type MessageAbout = Pick<
  LogMessage,
  "id" | "environmentId" | "transactionId" | "subscriberId" | "workflowKey" | "stepId" | "channel" | "provider" | "tenantId"
>;

/**
 * What a write answers: the send identities that already had a message (with that message's id),
 * and every message a change or timeline entry touched, as the write left it.
 */
export interface LogWritten {
  existing: { requested: string; id: string }[];
  described: MessageAbout[];
  /** The outbox entry holding this shard's part of the phase's D1 half, to settle once D1 took it; null: none. */
  outbox: string | null;
}

/** `GET /v1/messages`' filters as a shard applies them; `before` is the page's keyset (createdAt, id). */
export interface MessageFilter {
  environmentId: string;
  transactionId?: string;
  subscriberId?: string;
  workflowKey?: string;
  channel?: string;
  status?: string;
  provider?: string;
  tenantId?: string;
  /** A context key and the id it must have. */
  context?: [string, string];
  since?: number;
  until?: number;
  before?: [number, string];
  limit: number;
}

/** Messages counted by (bucket, channel or provider, the set of states reached as one bit each). */
export interface StatsRow {
  at: number;
  group: string | null;
  states: number;
  n: number;
}

/** The rows an expiry pass removed (and archived, when asked to). */
export interface Expired {
  messages: number;
  events: number;
  refs: number;
  /** In-app notifications. */
  feed: number;
  /** Finished trigger records. */
  triggers: number;
  archived: number;
}

/** A subscriber's in-app notification as the log holds it: the `in_app` message's id, times as epoch ms. */
export interface FeedRow {
  id: string;
  environmentId: string;
  subscriberId: string;
  transactionId: string;
  workflowKey: string;
  stepId: string;
  content: Record<string, unknown>;
  tags: string[];
  seenAt: number | null;
  readAt: number | null;
  archivedAt: number | null;
  snoozedUntil: number | null;
  completedAction: "primary" | "secondary" | null;
  createdAt: number;
  updatedAt: number;
  /** The trigger's context key (contract/inbox-context.ts): '' (or absent) for none. */
  context?: string;
  /** The trigger's tenant, null (or absent) for none. */
  tenantId?: string | null;
}

/** Which of a subscriber's notifications a feed read or bulk change applies to (db/queries/in-app.ts' InAppFilter, times as ms). */
export interface FeedFilter {
  read?: boolean;
  seen?: boolean;
  archived?: boolean;
  tags?: string[];
  workflowKey?: string;
  tagGroups?: string[][];
  snoozed?: { value: boolean; now: number };
  data?: { path: string[]; anyOf: (string | number | boolean | null)[] }[];
  createdGte?: number;
  createdLte?: number;
  ids?: string[];
  /** Exactly this context key ('' for notifications of no context): an Inbox session's scope. */
  context?: string;
  /** Only this tenant's notifications (the server feed's `?tenant=`). */
  tenantId?: string;
}

/** A change to notifications (InAppChange, times as ms). */
export interface FeedChange {
  read?: boolean;
  seen?: boolean;
  archived?: boolean;
  snoozedUntil?: number | null;
  completedAction?: "primary" | "secondary" | null;
}

export interface FeedCounts {
  total: number;
  unread: number;
  unseen: number;
  archived: number;
}

/** A new message's row in its trigger's index. */
export const indexedOf = (m: LogMessage): IndexedMessage => ({
  environmentId: m.environmentId,
  transactionId: m.transactionId,
  subscriberId: m.subscriberId,
  stepId: m.stepId,
  messageId: m.id,
  status: m.status,
  createdAt: m.createdAt,
});
