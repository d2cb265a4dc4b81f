import { triggerContextKey } from "../../contract/inbox-context";
import type { MessageStatus } from "../../db/schema";
import type { ClaimResult } from "../../durable-objects/ledger/claims";
import { redactSecrets } from "../../engine/redact";
import { partitionOfId } from "../../lib/ids";
import { GENERATION_SKEW_MS } from "../../durable-objects/client/log-naming";
import { preview } from "./decide";
import { type EventInput, type MessageFields, MessageWrites, type SendIdentity, sendMessageId } from "../writes/message-writes";
import { transition } from "../recipients/recipient-transitions";
import type { Recipient } from "../recipients/recipients-state";
import type { StepPlan } from "./plan";
import { claimKey, identityOf, type StepScope } from "./scope";

export interface Send {
  recipient: Recipient;
  messageId: string;
  /** A new message gets its `queued` and `sending` events with the result; a retried one already has its `sending`. */
  isNew: boolean;
  content: Record<string, unknown>;
  attempts: number;
  notes: Record<string, unknown>[];
  /**
   * A message with no row yet that the log takes once, with its result (phases/report.ts): its
   * identity, what it stores of the content, and when its send began.
   */
  unwritten?: { identity: SendIdentity; fields: StoredContent; createdAt: Date };
}

/** What a message keeps of its content: redacted, with the subject and preview shown in lists. */
type StoredContent = Pick<MessageFields, "content" | "subject" | "preview" | "layoutVersion">;

export interface Recorded {
  /**
   * What the log records before the send: skips, cancellations, repaired sends, granted in-app
   * messages and messages of earlier attempts as `sending` (written with the other chunks',
   * `DeliveryContext.writeMessages`). Other new messages are written with their results.
   */
  writes: MessageWrites;
  toSend: Send[];
  /** Claimed by another consumer that has not reported: try again later. */
  busy: Recipient[];
}

type SentReport = ClaimResult["sent"][number]["report"];
type FinalReport = ClaimResult["final"][number]["report"];

const CANCELLED = { status: "cancelled", code: "trigger_cancelled", message: "The trigger was cancelled." } as const;

/**
 * Turns the trigger object's answer to a step's claims into what D1 must record and what may
 * be sent, without I/O. A cancelled trigger records every message cancelled; an identity the
 * object already saw sent or fail for good (its D1 write was lost) is recorded from the object's report.
 */
export function recordClaims(plan: StepPlan, claims: ClaimResult, scope: StepScope, now: Date): Recorded {
  const writes = new MessageWrites(scope.db, now);
  const cancelled = new Set(claims.cancelled);
  const granted = new Set(claims.granted);
  const alreadySent = new Map(claims.sent.map((s) => [s.key, s.report]));
  const alreadyFinal = new Map(claims.final.map((s) => [s.key, s.report]));

  for (const { recipient } of [...plan.finals, ...plan.sends]) {
    if (!cancelled.has(claimKey(scope, recipient))) continue;
    transition(recipient, { type: "stop", stop: CANCELLED });
    recordFinal(writes, scope, recipient, CANCELLED.status, CANCELLED.code, CANCELLED.message);
  }
  for (const final of plan.finals) {
    if (!cancelled.has(claimKey(scope, final.recipient)))
      recordFinal(writes, scope, final.recipient, final.status, final.code, final.message, final.layoutVersion, final.detail);
  }

  const result: Recorded = { writes, toSend: [], busy: [] };
  for (const send of plan.sends) {
    const key = claimKey(scope, send.recipient);
    if (cancelled.has(key)) continue;
    const sent = alreadySent.get(key);
    const final = alreadyFinal.get(key);
    if (sent) recoverSent(writes, scope, send, sent);
    else if (final) recoverFinal(writes, scope, send, final);
    else if (!granted.has(key)) result.busy.push(send.recipient);
    else result.toSend.push(recordGranted(writes, scope, send, now));
  }
  return result;
}

type PlannedSend = StepPlan["sends"][number];

/** A message that ends without a send (skipped, failed before sending, cancelled): its row, or a new one. */
function recordFinal(
  writes: MessageWrites,
  scope: StepScope,
  recipient: Recipient,
  status: MessageStatus,
  code: string,
  message: string,
  layoutVersion?: number,
  extra?: Record<string, unknown>,
): void {
  const existing = scope.existing.get(claimKey(scope, recipient));
  const error = status === "failed" ? { errorCode: code, errorMessage: message } : {};
  const event = { status, detail: { reason: code, message, ...extra, ...Object.assign({}, ...recipient.notes) } };
  transition(recipient, { type: "notes-used" });
  if (existing) writes.update(existing, status, error, event);
  else
    writes.insertFinal(identityOf(scope, recipient.profile.subscriberId), status, { ...error, layoutVersion: layoutVersion ?? null }, [
      event,
    ]);
  transition(recipient, { type: "step", stepId: scope.step.id, outcome: { status } });
}

/**
 * A result the object kept but the log lost: recorded now, with the `queued`/`sending` events its
 * lost write held for a first attempt. A message with no row (its one write, after the send, was
 * lost) gets the id its send used and the content it was planned with.
 */
function recordRecovered(
  writes: MessageWrites,
  scope: StepScope,
  send: PlannedSend,
  status: MessageStatus,
  fields: Omit<MessageFields, "layoutVersion">,
  [event, ...more]: [EventInput, ...EventInput[]],
  sentAs: string | undefined,
): void {
  const { environmentId } = scope.job;
  const { recipient } = send;
  const existing = scope.existing.get(claimKey(scope, recipient));
  if (existing) {
    if (existing.attempts === 0) {
      writes.event(environmentId, existing.id, { status: "queued" }, existing.createdAt);
      writes.event(environmentId, existing.id, { status: "sending", detail: { attempt: 1 } }, existing.createdAt);
    }
    writes.update(existing, status, fields, event);
    for (const e of more) writes.event(environmentId, existing.id, e);
  } else {
    const identity = identityOf(scope, recipient.profile.subscriberId);
    writes.insertFinal(
      identity,
      status,
      { ...storedContent(scope, send), ...fields },
      [{ status: "queued" }, { status: "sending", detail: { attempt: 1 } }, event, ...more],
      // The id the provider got, as the object kept it (or, for a report kept before it did, as the send made it).
      { id: sentAs ?? sendIdOf(scope, identity, Date.now()) ?? undefined },
    );
  }
  transition(recipient, { type: "step", stepId: scope.step.id, outcome: { status } });
}

/** A send the object saw succeed: recorded as a send records it (phases/report.ts). */
function recoverSent(writes: MessageWrites, scope: StepScope, send: PlannedSend, { messageId, ...report }: SentReport): void {
  const fields = { ...report, errorCode: null, errorMessage: null };
  const detail = { provider: report.provider, providerMessageId: report.providerMessageId, recovered: true };
  // Clarion is the in-app provider, so stored is delivered.
  if (scope.step.type === "in_app")
    recordRecovered(
      writes,
      scope,
      send,
      "delivered",
      fields,
      [
        { status: "sent", detail },
        { status: "delivered", detail: { provider: report.provider, recovered: true } },
      ],
      messageId,
    );
  else recordRecovered(writes, scope, send, "sent", fields, [{ status: "sent", detail }], messageId);
}

/** A send the object saw fail for good. */
function recoverFinal(writes: MessageWrites, scope: StepScope, send: PlannedSend, report: FinalReport): void {
  const { status, messageId, ...fields } = report;
  const detail = { error: fields.errorCode, message: fields.errorMessage, provider: fields.provider, recovered: true };
  recordRecovered(writes, scope, send, status, fields, [{ status, detail }], messageId);
}

/** What a message stores of its planned content: secrets redacted (the provider alone gets them in clear). */
function storedContent(scope: StepScope, { content, layoutVersion }: PlannedSend): StoredContent {
  const stored = redactSecrets(content, scope.secrets);
  return {
    content: stored,
    subject: typeof stored.subject === "string" ? stored.subject : null,
    preview: preview(stored),
    layoutVersion: layoutVersion ?? null,
  };
}

/**
 * Half the skew the log's generations allow between a row's id time and its createdAt
 * (log-naming.ts): a send-derived id carries its trigger's acceptance time, so it is used only
 * while the send starts this close to it.
 */
const SEND_ID_WINDOW_MS = GENERATION_SKEW_MS / 2;

/**
 * The id a new message takes from its send identity (message-writes.ts `sendMessageId`), written
 * once after its send; null where it would carry a time too far from the send's: a run resumed
 * after a delay, digest or wait, or a first run starting more than SEND_ID_WINDOW_MS after its
 * trigger was accepted (a backlog). Those are recorded `sending` before the send, under a new id,
 * as before. The choice is the same on every attempt of the first run within the window.
 */
function sendIdOf(scope: StepScope, identity: SendIdentity, now: number): string | null {
  const { job, trigger } = scope;
  const resumed = job.fromStep !== undefined || job.digest !== undefined || job.signal !== undefined || job.digestedInto !== undefined;
  if (resumed || now - trigger.acceptedAt > SEND_ID_WINDOW_MS) return null;
  return sendMessageId(identity, trigger.acceptedAt, job.chunk);
}

/**
 * A granted send. A new message is written once, with its result (phases/report.ts): the log's
 * write is most of a send's cost. Not an in-app step's, recorded as `sending` with its
 * notification now, which must be in the log before the send pushes it; nor a message with a row
 * (an earlier attempt's), shown `sending` again.
 */
function recordGranted(writes: MessageWrites, scope: StepScope, planned: PlannedSend, now: Date): Send {
  const { recipient, content, warnings } = planned;
  const existing = scope.existing.get(claimKey(scope, recipient));
  const { layoutVersion, ...fields } = storedContent(scope, planned);
  const identity = identityOf(scope, recipient.profile.subscriberId);
  const sendId = !existing && scope.step.type !== "in_app" ? sendIdOf(scope, identity, now.getTime()) : null;
  const deferred = sendId !== null;
  const messageId = existing ? existing.id : (sendId ?? writes.insertSending(identity, { ...fields, layoutVersion }));
  if (existing) writes.update(existing, "sending", fields, { status: "sending", detail: { attempt: existing.attempts + 1 } });
  // The Inbox's notification goes to the log with its message (one shard, one transaction), so
  // it is there before the send pushes it. One for a message D1 recorded is stored by the send,
  // which looks first for the one D1 may hold.
  if (scope.step.type === "in_app" && partitionOfId(messageId) !== null)
    writes.notify({
      id: messageId,
      environmentId: scope.job.environmentId,
      subscriberId: recipient.profile.subscriberId,
      transactionId: scope.job.transactionId,
      workflowKey: scope.trigger.workflowKey,
      stepId: scope.step.id,
      content,
      tags: [...(scope.workflowTags ?? [])],
      seenAt: null,
      readAt: null,
      archivedAt: null,
      snoozedUntil: null,
      completedAction: null,
      createdAt: now.getTime(),
      updatedAt: now.getTime(),
      context: triggerContextKey(scope.trigger.tenant?.id, scope.trigger.context),
      tenantId: scope.trigger.tenant?.id ?? null,
    });
  // What the send left out (an in-app URL that may not be served) is on the timeline with its first event, as a hold is.
  const notes = warnings ? [...recipient.notes, { warnings }] : recipient.notes;
  transition(recipient, { type: "notes-used" });
  return {
    recipient,
    messageId,
    isNew: !existing,
    content,
    attempts: existing?.attempts ?? 0,
    notes,
    ...(deferred ? { unwritten: { identity, fields: { ...fields, layoutVersion }, createdAt: now } } : {}),
  };
}
