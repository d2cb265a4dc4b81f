import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type messages, subscriberChannels, type MessageStatus } from "../../db/schema";
import type { Statement } from "../../db/batch";
import { captureRows, eventRows, finalRows, messageUpdates, sendingRows } from "../../db/queries/message-rows";
import type { KeyedValues } from "../../db/case-update";
import type { RowOf } from "../../db/row-insert";
import { suppressStatement, type SuppressionInput } from "../../db/queries/suppressions";
import {
  type MessageFact,
  messageFactEvents,
  type SuppressionFact,
  suppressionFactEvents,
  writtenEvents,
} from "../../db/queries/fact-events";
import type { EventType } from "../../contract/event-types";
import { normaliseAddress } from "../../lib/normalise-address";
import { newId } from "../../lib/ids";
import type { Capture } from "../../providers/types";

export type MessageRow = typeof messages.$inferSelect;

/** The identity of one delivery: trigger + subscriber + step (Novu's send identity). */
export interface SendIdentity {
  environmentId: string;
  transactionId: string;
  subscriberId: string;
  workflowKey: string;
  stepId: string;
  channel: string;
}

export interface MessageFields {
  provider?: string | null;
  integrationId?: string | null;
  providerMessageId?: string | null;
  to?: string | null;
  subject?: string | null;
  preview?: string | null;
  content?: Record<string, unknown> | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  attempts?: number;
}

export interface EventInput {
  status: MessageStatus;
  detail?: Record<string, unknown>;
}

const eventRow = (environmentId: string, messageId: string, event: EventInput, at: Date) => ({
  id: newId("evt"),
  environmentId,
  messageId,
  status: event.status,
  at,
  detail: event.detail ?? null,
});

/** The outbound event a status in a message's timeline is reported as; the others (queued, sending, cancelled) are not. */
const EVENT_OF_STATUS: Partial<Record<MessageStatus, EventType>> = {
  sent: "message.sent",
  delivered: "message.delivered",
  failed: "message.failed",
  undeliverable: "message.failed",
  bounced: "message.bounced",
  opened: "message.opened",
  clicked: "message.clicked",
  skipped: "message.skipped",
  seen: "message.seen",
  read: "message.read",
  archived: "message.archived",
};

/** A skip's reason or a failure's code, as the timeline's detail names it. */
const reasonOf = (detail: Record<string, unknown> | undefined) => {
  const reason = detail?.reason ?? detail?.error;
  return typeof reason === "string" ? reason : null;
};

type UpdatedColumn = keyof MessageFields | "status" | "updatedAt";

/** A message's new values, by its id. */
type MessageUpdate = KeyedValues<UpdatedColumn>;

/** Fields of a final message that `finalRows` has no column for (none, or `insertFinal` does not compile). */
type Unwritten = Exclude<keyof MessageFields | keyof SendIdentity, keyof RowOf<typeof finalRows>>;

/** Builds the D1 statements of one delivery phase, to run as a single batch. */
export class MessageWrites {
  readonly statements: Statement[] = [];
  private readonly events: ReturnType<typeof eventRow>[] = [];
  /** Rows of one shape, written as multi-row inserts: a fan-out writes thousands per batch. */
  private readonly sending: RowOf<typeof sendingRows>[] = [];
  private readonly finals: RowOf<typeof finalRows>[] = [];
  private readonly captures: RowOf<typeof captureRows>[] = [];
  private readonly updates: MessageUpdate[] = [];
  private readonly messageFacts: MessageFact[] = [];
  private readonly suppressionFacts: SuppressionFact[] = [];
  /** Where, in the statements `all()` answered, the outbound events' inserts are. */
  private eventsAt: number[] = [];
  constructor(
    private readonly db: Db,
    private readonly now: Date,
  ) {}

  /**
   * The writes of many chunks as one: their rows share multi-row statements, so chunks of one
   * recipient each (single triggers) cost a few statements together rather than a few each.
   */
  static merged(first: MessageWrites, rest: readonly MessageWrites[]): MessageWrites {
    if (rest.length === 0) return first;
    const merged = new MessageWrites(first.db, first.now);
    for (const w of [first, ...rest]) {
      merged.statements.push(...w.statements);
      merged.events.push(...w.events);
      merged.sending.push(...w.sending);
      merged.finals.push(...w.finals);
      merged.captures.push(...w.captures);
      merged.updates.push(...w.updates);
      merged.messageFacts.push(...w.messageFacts);
      merged.suppressionFacts.push(...w.suppressionFacts);
    }
    return merged;
  }

  /** A message that reaches its state without a send (skipped, failed before sending, cancelled). */
  insertFinal(identity: SendIdentity, status: MessageStatus, fields: MessageFields, events: EventInput[]): string {
    // A field missing from finalRows' columns would be dropped silently (a spread's extra keys are
    // not checked): this fails to compile, naming the field, instead.
    const everyFieldWritten: [Unwritten] extends [never] ? true : Unwritten = true;
    void everyFieldWritten;
    const id = newId("msg");
    this.finals.push({ id, ...identity, status, ...fields, attempts: fields.attempts ?? 0, createdAt: this.now, updatedAt: this.now });
    for (const e of events) this.timeline(identity.environmentId, id, e, this.now);
    return id;
  }

  /**
   * A message the trigger's Durable Object granted for sending, recorded as `sending`. Its
   * `queued`/`sending` events are written with the send's result, in the next batch.
   */
  insertSending(identity: SendIdentity, fields: MessageFields): string {
    const id = newId("msg");
    this.sending.push({
      id,
      ...identity,
      status: "sending",
      content: fields.content ?? null,
      subject: fields.subject ?? null,
      preview: fields.preview ?? null,
      attempts: 0,
      createdAt: this.now,
      updatedAt: this.now,
    });
    return id;
  }

  event(environmentId: string, messageId: string, event: EventInput, at = this.now): void {
    this.timeline(environmentId, messageId, event, at);
  }

  /** A timeline entry, and the outbound event it is reported as (written in the same batch). */
  private timeline(environmentId: string, messageId: string, event: EventInput, at: Date): void {
    this.events.push(eventRow(environmentId, messageId, event, at));
    const type = EVENT_OF_STATUS[event.status];
    if (type) this.messageFacts.push({ type, environmentId, messageId, at, status: event.status, reason: reasonOf(event.detail) });
  }

  update(environmentId: string, messageId: string, status: MessageStatus, fields: MessageFields, event: EventInput): void {
    // Undefined leaves a column as it is, as drizzle's set() does.
    const values = Object.fromEntries(Object.entries({ status, ...fields, updatedAt: this.now }).filter(([, v]) => v !== undefined));
    this.updates.push({ key: messageId, values });
    this.timeline(environmentId, messageId, event, this.now);
  }

  capture(environmentId: string, messageId: string, capture: Capture): void {
    this.captures.push({ id: newId("cap"), environmentId, messageId, ...capture, createdAt: this.now });
  }

  removeAddresses(environmentId: string, subscriberId: string, channel: "push" | "chat", addresses: string[]): void {
    if (addresses.length === 0) return;
    this.statements.push(
      this.db
        .delete(subscriberChannels)
        .where(
          and(
            eq(subscriberChannels.environmentId, environmentId),
            eq(subscriberChannels.subscriberId, subscriberId),
            eq(subscriberChannels.channel, channel),
            inArray(subscriberChannels.address, addresses),
          ),
        ),
    );
  }

  suppress(input: Omit<SuppressionInput, "at">, at = this.now): void {
    this.statements.push(suppressStatement(this.db, { ...input, at }));
    this.suppressionFacts.push({ environmentId: input.environmentId, address: normaliseAddress(input.channel, input.address), at });
  }

  /**
   * All statements: new messages first, events last (each kind in as few multi-row inserts as D1's
   * 100 parameters allow). The new rows and the results set on messages are D1 statements bound by
   * hand (db/queries/message-rows.ts), the rest drizzle's; `runBatch` runs both as one batch.
   */
  all(): Statement[] {
    const d1 = this.db.$client;
    // Of two rows for one send identity (chunks merged), the first is kept: the `sending` one.
    const inserts = [...sendingRows.statements(d1, this.sending), ...finalRows.statements(d1, this.finals)];
    // Many messages' results in few statements rather than one UPDATE per message: a fan-out's results are
    // thousands of rows per batch, and D1 runs statements one after another. One CaseUpdate per shape (the columns set).
    const updates = [...Map.groupBy(this.updates, (u) => Object.keys(u.values).sort().join(","))].flatMap(([shape, group]) =>
      messageUpdates.statements(d1, shape.split(",") as UpdatedColumn[], group),
    );
    const after = [...captureRows.statements(d1, this.captures), ...eventRows.statements(d1, this.events)];
    // Last: they read the messages and suppressions as the statements before left them.
    const outbound: D1PreparedStatement[] = [];
    if (this.messageFacts.length) outbound.push(messageFactEvents(this.db, this.messageFacts));
    if (this.suppressionFacts.length) outbound.push(suppressionFactEvents(this.db, this.suppressionFacts));
    const all = [...inserts, ...this.statements, ...updates, ...after, ...outbound];
    this.eventsAt = outbound.map((_, i) => all.length - outbound.length + i);
    return all;
  }

  /** The outbound events the batch of `all()` wrote, from its results: what to dispatch once it committed. */
  written(results: readonly unknown[]) {
    return writtenEvents(results, this.eventsAt);
  }
}
