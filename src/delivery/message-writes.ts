import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { messageEvents, messages, sandboxMessages, subscriberChannels, type MessageStatus } from "../db/schema";
import { newId } from "../lib/ids";
import type { Capture } from "../providers/types";

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

/** Builds the D1 statements of one delivery phase, to run as a single batch. */
export class MessageWrites {
  readonly statements: BatchItem<"sqlite">[] = [];
  private readonly events: ReturnType<typeof eventRow>[] = [];
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
    this.statements.push(
      this.db
        .insert(messages)
        .values({ id, ...identity, status: "sending", ...fields, attempts: 0, createdAt: this.now, updatedAt: this.now })
        .onConflictDoNothing(),
    );
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
    this.statements.push(
      this.db.insert(sandboxMessages).values({ id: newId("cap"), environmentId, messageId, ...capture, createdAt: this.now }),
    );
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

  /** All statements, events last (7 columns each, so 14 rows per statement). */
  all(): BatchItem<"sqlite">[] {
    const eventInserts: BatchItem<"sqlite">[] = [];
    for (let i = 0; i < this.events.length; i += 14) {
      eventInserts.push(this.db.insert(messageEvents).values(this.events.slice(i, i + 14)));
    }
    return [...this.statements, ...eventInserts];
  }
}
