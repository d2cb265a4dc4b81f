import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { messageEvents, messages, sandboxMessages, subscriberChannels, type MessageStatus } from "../db/schema";
import { chunk, rowsPerStatement } from "../db/batch";
import { suppressStatement, type SuppressionInput } from "../db/queries/suppressions";
import { newId } from "../lib/ids";
import type { Capture } from "../providers/types";

export type MessageRow = typeof messages.$inferSelect;

/** Bound parameters per row of each multi-row insert (D1 allows 100 per statement). */
const SENDING_COLUMNS = 14;
const CAPTURE_COLUMNS = 8;
const EVENT_COLUMNS = 7;

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

/** Builds the D1 statements of one delivery phase, to run as a single batch. */
export class MessageWrites {
  readonly statements: BatchItem<"sqlite">[] = [];
  private readonly events: ReturnType<typeof eventRow>[] = [];
  /** Rows of one shape, written as multi-row inserts: a fan-out writes thousands per batch. */
  private readonly sending: (typeof messages.$inferInsert)[] = [];
  private readonly captures: (typeof sandboxMessages.$inferInsert)[] = [];
  constructor(
    private readonly db: Db,
    private readonly now: Date,
  ) {}

  /** A message that reaches its state without a send (skipped, failed before sending, cancelled). */
  insertFinal(identity: SendIdentity, status: MessageStatus, fields: MessageFields, events: EventInput[]): string {
    const id = newId("msg");
    this.statements.push(
      this.db
        .insert(messages)
        .values({ id, ...identity, status, ...fields, attempts: fields.attempts ?? 0, createdAt: this.now, updatedAt: this.now })
        .onConflictDoNothing(),
    );
    for (const e of events) this.events.push(eventRow(identity.environmentId, id, e, this.now));
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
    this.events.push(eventRow(environmentId, messageId, event, at));
  }

  update(environmentId: string, messageId: string, status: MessageStatus, fields: MessageFields, event: EventInput): void {
    this.statements.push(
      this.db
        .update(messages)
        .set({ status, ...fields, updatedAt: this.now })
        .where(eq(messages.id, messageId)),
    );
    this.events.push(eventRow(environmentId, messageId, event, this.now));
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

  suppress(input: Omit<SuppressionInput, "at">): void {
    this.statements.push(suppressStatement(this.db, { ...input, at: this.now }));
  }

  /** All statements: new messages first, events last (each kind in as few multi-row inserts as D1's 100 parameters allow). */
  all(): BatchItem<"sqlite">[] {
    const inserts: BatchItem<"sqlite">[] = [];
    for (const rows of chunk(this.sending, rowsPerStatement(SENDING_COLUMNS)))
      inserts.push(this.db.insert(messages).values(rows).onConflictDoNothing());
    const after: BatchItem<"sqlite">[] = [];
    for (const rows of chunk(this.captures, rowsPerStatement(CAPTURE_COLUMNS))) after.push(this.db.insert(sandboxMessages).values(rows));
    for (const rows of chunk(this.events, rowsPerStatement(EVENT_COLUMNS))) after.push(this.db.insert(messageEvents).values(rows));
    return [...inserts, ...this.statements, ...after];
  }
}
