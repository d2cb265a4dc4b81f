import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type messages, subscriberChannels, type MessageStatus } from "../../db/schema";
import { type Statement, serialized } from "../../db/batch";
import { captureRows, eventRows, messageUpdates } from "../../db/queries/message-rows";
import type { KeyedValues } from "../../db/case-update";
import type { RowOf } from "../../db/row-insert";
import { suppressionRow, suppressionRows, type SuppressionInput } from "../../db/queries/suppressions";
import {
  type MessageFact,
  messageFactEvents,
  type SuppressionFact,
  suppressionFactEvents,
  writtenEvents,
} from "../../db/queries/fact-events";
import type { EventType } from "../../contract/event-types";
import { newId, newLogId, partitionOfId } from "../../lib/ids";
import type {
  FeedRow,
  IndexKey,
  LogBatch,
  LogMessage,
  LogStore,
  MessageAbout,
  MessageChanges,
} from "../../durable-objects/client/log-store";
import { SEND_ID_AHEAD_MS, subscriberPartition } from "../../durable-objects/client/log-naming";
import { fnv1a } from "../../durable-objects/client/naming";
import { reportsByProviderId } from "../../providers/registry";
import type { Capture } from "../../providers/types";

export type MessageRow = typeof messages.$inferSelect;

/** The columns a new message leaves empty unless its fields set them. */
const EMPTY = {
  provider: null,
  integrationId: null,
  providerMessageId: null,
  to: null,
  subject: null,
  preview: null,
  content: null,
  errorCode: null,
  errorMessage: null,
  layoutVersion: null,
} satisfies Partial<LogMessage>;

/** A change as D1's columns take it (times as dates). */
const toD1Values = (changes: MessageChanges): KeyedValues<UpdatedColumn>["values"] =>
  Object.fromEntries(
    Object.entries(changes).map(([k, v]) => [k, k === "updatedAt" && typeof v === "number" ? new Date(v) : v]),
  ) as KeyedValues<UpdatedColumn>["values"];

/** The identity of one delivery: trigger + subscriber + step (Novu's send identity). */
export interface SendIdentity {
  environmentId: string;
  transactionId: string;
  subscriberId: string;
  workflowKey: string;
  stepId: string;
  channel: string;
  /** The trigger's workflow version (null for a workflow saved before versions were kept): kept on the message. */
  workflowVersion: number | null;
  /** The trigger's tenant and other context ids, kept on the message (filters, the Inbox's scope). */
  tenantId?: string | null;
  context?: Record<string, string> | null;
  /** A wait step watches this step's messages (the log's `watched`). */
  watched?: boolean;
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
  /** The version of the layout the email was rendered in (null: none); set when the message is inserted. */
  layoutVersion?: number | null;
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
  at: at.getTime(),
  detail: event.detail ?? null,
});

/**
 * The id of a send's message that has no row yet, the same at every attempt: a message is
 * written once its send is done, so an attempt that died before writing it leaves nothing to
 * take its id from, and the next one must still give the provider the same id (its idempotency
 * key, the links in the email) and find the row under it. A log id (lib/ids.ts `newLogId`) made
 * of the trigger's time, 42 bits of the send identity's hash, and the subscriber's partition.
 *
 * The time is the trigger's plus the recipient's chunk in milliseconds (up to SEND_ID_AHEAD_MS):
 * a chunk's recipients are the same at every attempt (a fan-out's are kept by its coordinator,
 * and a trigger of one chunk has chunk 0, whose ids are as before). So a large topic's ids
 * follow the order its chunks run in, and a log shard adds its rows and timeline entries at the
 * end of its indexes rather than on random pages of them: with the trigger's time alone, all of
 * a topic's ids shared it and were ordered by their hash (log/schema.ts).
 */
export function sendMessageId(identity: SendIdentity, triggerAcceptedAt: number, chunk = 0): string {
  const { environmentId, transactionId, subscriberId, stepId } = identity;
  const named = `${environmentId}\u0000${transactionId}\u0000${subscriberId}\u0000${stepId}`;
  const [high, low] = [fnv1a(`send-id:${named}`), fnv1a(`${named}:send-id`)];
  const at = Math.trunc(triggerAcceptedAt) + Math.min(Math.max(0, Math.trunc(chunk)), SEND_ID_AHEAD_MS);
  const time = Math.max(0, Math.min(at, 2 ** 48 - 1))
    .toString(16)
    .padStart(12, "0");
  // 12 bits, then the variant (10) with 2 bits, then 28 bits: as a UUID's sequence and randomness lie.
  const middle = `${(high >>> 20).toString(16).padStart(3, "0")}${(0x8 | ((high >>> 18) & 0x3)).toString(16)}${(low >>> 4).toString(16).padStart(7, "0")}`;
  const partition = subscriberPartition(environmentId, subscriberId).toString(16).padStart(8, "0");
  return `msg_${time}8${middle}${partition}`;
}

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

/** What a later phase may change: a message's layout is what it was inserted with. */
type ChangedFields = Omit<MessageFields, "layoutVersion">;

type UpdatedColumn = keyof ChangedFields | "status" | "updatedAt";

/** A stored message by its id and send identity: what a change to it needs (its trigger's index is keyed by the identity, trigger-index.ts). */
export type MessageOf = IndexKey & { id: string };

/** A message's new values, by its id. */
type MessageUpdate = { key: string; values: MessageChanges; message: MessageOf };

/** Fields of a message that the log's row has no place for (none, or `insertFinal` does not compile). */
type Unwritten = Exclude<keyof MessageFields | keyof SendIdentity, keyof LogMessage>;

/**
 * The writes of one delivery phase: messages, their timelines and sandbox captures for the log
 * shards (one call per shard), the rest (suppressions, removed addresses, outbound events, and the
 * results of messages recorded in D1 before the log left it) as one D1 batch after them.
 */
export class MessageWrites {
  readonly statements: Statement[] = [];
  private readonly events: ReturnType<typeof eventRow>[] = [];
  private readonly inserts: LogMessage[] = [];
  private readonly captures: RowOf<typeof captureRows>[] = [];
  private readonly suppressions: RowOf<typeof suppressionRows>[] = [];
  private readonly updates: MessageUpdate[] = [];
  private readonly messageFacts: MessageFact[] = [];
  private readonly suppressionFacts: SuppressionFact[] = [];
  private readonly notifications: FeedRow[] = [];
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
      merged.inserts.push(...w.inserts);
      merged.captures.push(...w.captures);
      merged.suppressions.push(...w.suppressions);
      merged.updates.push(...w.updates);
      merged.messageFacts.push(...w.messageFacts);
      merged.suppressionFacts.push(...w.suppressionFacts);
      merged.notifications.push(...w.notifications);
    }
    return merged;
  }

  /**
   * A message inserted in the state it ends in: one that reaches it without a send (skipped,
   * failed before sending, cancelled), or a send written once with its result (`place`: the id
   * the provider got, and when the send began).
   */
  insertFinal(
    identity: SendIdentity,
    status: MessageStatus,
    fields: MessageFields,
    events: EventInput[],
    place: { id?: string; createdAt?: Date } = {},
  ): string {
    // A field missing from finalRows' columns would be dropped silently (a spread's extra keys are
    // not checked): this fails to compile, naming the field, instead.
    const everyFieldWritten: [Unwritten] extends [never] ? true : Unwritten = true;
    void everyFieldWritten;
    const id = place.id ?? newLogId("msg", subscriberPartition(identity.environmentId, identity.subscriberId));
    this.inserts.push({
      ...EMPTY,
      id,
      ...identity,
      status,
      ...fields,
      attempts: fields.attempts ?? 0,
      createdAt: (place.createdAt ?? this.now).getTime(),
      updatedAt: this.now.getTime(),
    });
    for (const e of events) this.timeline(identity.environmentId, id, e, this.now);
    return id;
  }

  /**
   * A message the trigger's Durable Object granted for sending, recorded as `sending`. Its
   * `queued`/`sending` events are written with the send's result, in the next batch.
   */
  insertSending(identity: SendIdentity, fields: MessageFields): string {
    const id = newLogId("msg", subscriberPartition(identity.environmentId, identity.subscriberId));
    this.inserts.push({
      ...EMPTY,
      id,
      ...identity,
      status: "sending",
      content: fields.content ?? null,
      subject: fields.subject ?? null,
      preview: fields.preview ?? null,
      layoutVersion: fields.layoutVersion ?? null,
      attempts: 0,
      createdAt: this.now.getTime(),
      updatedAt: this.now.getTime(),
    });
    return id;
  }

  /** Nothing to write: the phase makes no call. */
  get empty(): boolean {
    return (
      this.statements.length === 0 &&
      this.events.length === 0 &&
      this.inserts.length === 0 &&
      this.captures.length === 0 &&
      this.suppressions.length === 0 &&
      this.updates.length === 0 &&
      this.notifications.length === 0 &&
      this.messageFacts.length === 0 &&
      this.suppressionFacts.length === 0
    );
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

  update(message: MessageOf, status: MessageStatus, fields: ChangedFields, event: EventInput): void {
    const { id: messageId, environmentId, transactionId, subscriberId, stepId } = message;
    // Undefined leaves a column as it is, as drizzle's set() does.
    const values: MessageChanges = Object.fromEntries(
      Object.entries({ status, ...fields, updatedAt: this.now.getTime() }).filter(([, v]) => v !== undefined),
    );
    // The key's fields alone: a stored row passed as `message` is not kept with the phase's writes.
    this.updates.push({ key: messageId, values, message: { id: messageId, environmentId, transactionId, subscriberId, stepId } });
    this.timeline(environmentId, messageId, event, this.now);
  }

  /** An in-app notification: written with its message, in the same shard and transaction. */
  notify(row: FeedRow): void {
    this.notifications.push(row);
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
    const row = suppressionRow({ ...input, at });
    this.suppressions.push(row);
    this.suppressionFacts.push({ environmentId: input.environmentId, address: row.address, at });
  }

  /**
   * The phase's log rows, one call per shard once written. A message's provider id also gets a
   * ref in the shard of that id's hash: a provider's report names only it.
   */
  logBatch(store: LogStore): LogBatch {
    const batch = store.batch();
    for (const m of this.inserts) batch.insert(m);
    for (const u of this.updates) {
      batch.update(u.key, u.values, u.message);
      if (u.values.providerMessageId && reportsByProviderId(u.values.provider))
        batch.ref({ providerMessageId: u.values.providerMessageId, environmentId: u.message.environmentId, messageId: u.key });
    }
    for (const e of this.events) batch.event(e);
    for (const f of this.notifications) batch.feed(f);
    for (const c of this.captures) batch.capture({ ...c, createdAt: c.createdAt.getTime() });
    // Only for a provider whose status webhook names its own id: a push provider's or the sandbox's
    // ref would be written for every send (a row in another shard) and never read.
    for (const m of this.inserts)
      if (m.providerMessageId && reportsByProviderId(m.provider))
        batch.ref({ providerMessageId: m.providerMessageId, environmentId: m.environmentId, messageId: m.id });
    return batch;
  }

  /**
   * Puts the phase's D1 half (what `all()` answers after the write) in the batch, for the shards'
   * outbox (d1-outbox.ts): the log's messages' events are described by their own shards, the rest
   * goes as built here. For a writer that runs the D1 half after the log's write. `endpointless`:
   * as `all()` takes it, whose events are left out of the outbox too (they would insert nothing).
   */
  keepD1Half(batch: LogBatch, endpointless: ReadonlySet<string> = new Set()): void {
    const facts = this.takenFacts(endpointless);
    const logged = facts.filter((f) => partitionOfId(f.messageId) !== null);
    const unlogged = facts.filter((f) => partitionOfId(f.messageId) === null);
    const rest = [...this.undescribed(batch.legacy), ...(unlogged.length ? [messageFactEvents(this.db, unlogged)] : [])];
    batch.outbox(rest.map(serialized), logged);
  }

  /** Whether `all()` describes messages in events (it reads the log write's `described`): not when no environment here takes them. */
  reportsMessages(endpointless: ReadonlySet<string> = new Set()): boolean {
    return this.takenFacts(endpointless).length > 0;
  }

  /** The message events D1 may take: none of an environment known to have no enabled endpoint (they would insert nothing). */
  private takenFacts(endpointless: ReadonlySet<string>): MessageFact[] {
    return endpointless.size ? this.messageFacts.filter((f) => !endpointless.has(f.environmentId)) : this.messageFacts;
  }

  /** Built once per `legacy` (keepD1Half, then all()): the same statements, not built twice. */
  private built?: { legacy: LogBatch["legacy"]; statements: Statement[] };

  /** The D1 half but the outbound events of messages: it needs no answer of the log's write. */
  private undescribed(legacy: LogBatch["legacy"]): Statement[] {
    if (this.built?.legacy === legacy) return [...this.built.statements];
    const statements = this.build(legacy);
    this.built = { legacy, statements };
    return [...statements];
  }

  private build(legacy: LogBatch["legacy"]): Statement[] {
    const d1 = this.db.$client;
    // Many messages' results in few statements rather than one UPDATE per message. One CaseUpdate per shape (the columns set).
    const updates = [...Map.groupBy(legacy.updates, (u) => Object.keys(u.changes).sort().join(","))].flatMap(([shape, group]) =>
      messageUpdates.statements(
        d1,
        shape.split(",") as UpdatedColumn[],
        group.map((u) => ({ key: u.id, values: toD1Values(u.changes) })),
      ),
    );
    const legacyEvents = legacy.events.map((e) => ({ ...e, at: new Date(e.at) }));
    const after = [
      ...suppressionRows.statements(d1, this.suppressions),
      // A capture of a message the log holds went with it (logBatch); D1 keeps those of messages it recorded before.
      ...captureRows.statements(
        d1,
        this.captures.filter((c) => partitionOfId(c.messageId) === null),
      ),
      ...eventRows.statements(d1, legacyEvents),
    ];
    // Last: suppression events read the suppressions as the statements before left them.
    return [
      ...this.statements,
      ...updates,
      ...after,
      ...(this.suppressionFacts.length ? [suppressionFactEvents(this.db, this.suppressionFacts)] : []),
    ];
  }

  /**
   * The D1 statements, after the log was written: the results and timelines of messages recorded
   * in D1 before the log left it (`legacy`) and their captures, the statements added directly, and last
   * the outbound events, which describe the messages as the log write left them (`described`).
   */
  all(
    legacy: LogBatch["legacy"] = { updates: [], events: [] },
    described: ReadonlyMap<string, MessageAbout> = new Map(),
    /** Environments known to have no enabled webhook endpoint (`noEndpointsStands`): their message events would insert nothing. */
    endpointless: ReadonlySet<string> = new Set(),
  ): Statement[] {
    const all = this.undescribed(legacy);
    const facts = this.takenFacts(endpointless);
    // Last: they read the messages as the statements before left them.
    if (facts.length) all.push(messageFactEvents(this.db, facts, described));
    this.eventsAt = [];
    if (this.suppressionFacts.length) this.eventsAt.push(all.length - 1 - (facts.length ? 1 : 0));
    if (facts.length) this.eventsAt.push(all.length - 1);
    return all;
  }

  /** The environments whose message events this phase would write. */
  environments(): string[] {
    return [...new Set(this.messageFacts.map((f) => f.environmentId))];
  }

  /** The outbound events the batch of `all()` wrote, from its results: what to dispatch once it committed. */
  written(results: readonly unknown[]) {
    return writtenEvents(results, this.eventsAt);
  }
}
