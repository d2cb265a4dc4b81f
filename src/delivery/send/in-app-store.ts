import { triggerContextKey } from "../../contract/inbox-context";
import { runBatch } from "../../db/batch";
import { existingNotifications, type InAppRow } from "../../db/queries/in-app";
import { toFeedRow } from "../../durable-objects/client/inbox-feed";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import { partitionOfId } from "../../lib/ids";
import { presentAmong } from "../../db/queries/inbox-presence";
import { inboxSockets } from "../../durable-objects/inbox-socket/client";
import type { InAppContent } from "../../engine/content";
import type { Bindings } from "../../env";
import type { SendResult } from "./send-message";
import type { Db } from "../../db/client";
import type { ChannelStep } from "../../engine/steps";
import type { RecipientsJob } from "../../jobs/job";
import type { TriggerRecord } from "../../jobs/trigger-record";

/** What storing a step's in_app sends reads of the step's scope (phases/scope.ts's StepScope carries it). */
export interface InAppScope {
  db: Db;
  job: RecipientsJob;
  trigger: TriggerRecord;
  step: ChannelStep;
  workflowTags?: readonly string[];
}

/** One in_app send: its message id (the notification's id too), subscriber and rendered content. */
export interface InAppSend {
  messageId: string;
  subscriberId: string;
  content: Record<string, unknown>;
  /** A first attempt: its notification was written with its message, so it is news to an open Inbox. */
  isNew: boolean;
}

/**
 * The in-app channel's "provider": the notifications (id = message id) were written to the log
 * with their messages when the send was recorded (phases/record.ts), so here Clarion reads which
 * subscribers have an open Inbox socket (their presence) and pushes what is new for those, one
 * object call per present subscriber (the others' objects are never created); a failed push is
 * logged and the message stays delivered. A message D1 recorded before the feed left it, sent
 * again, gets its notification now, in the log, unless D1 holds it; a failed write of that is
 * retried like any provider's transient error, for every send of the batch alike.
 */
export async function storeInApp(env: Bindings, scope: InAppScope, sends: InAppSend[]): Promise<SendResult[]> {
  if (sends.length === 0) return [];
  const now = new Date();
  const { environmentId } = scope.job;
  const rowOf = (send: InAppSend): InAppRow => ({
    id: send.messageId,
    environmentId,
    subscriberId: send.subscriberId,
    transactionId: scope.job.transactionId,
    workflowKey: scope.trigger.workflowKey,
    stepId: scope.step.id,
    content: send.content as unknown as InAppContent,
    tags: [...(scope.workflowTags ?? [])],
    seenAt: null,
    readAt: null,
    archivedAt: null,
    snoozedUntil: null,
    completedAction: null,
    createdAt: now,
    updatedAt: now,
    context: triggerContextKey(scope.trigger.tenant?.id, scope.trigger.context),
    tenantId: scope.trigger.tenant?.id ?? null,
  });
  const older = sends.filter((send) => partitionOfId(send.messageId) === null);
  const stored = await storeOlder(env, scope, older.map(rowOf)).then(
    (ids) => ids,
    (error: unknown) => String(error),
  );
  if (typeof stored !== "string") {
    const fresh = sends.filter((send) => send.isNew || stored.has(send.messageId));
    await pushFresh(env, scope, fresh.map(rowOf));
  }
  return sends.map((send) => ({
    outcome:
      typeof stored !== "string"
        ? { ok: true, providerMessageId: send.messageId }
        : { ok: false, kind: "retryable", code: "in_app_store_failed", message: stored },
    captures: [],
    invalidAddresses: [],
  }));
}

/** Notifications of messages D1 recorded: stored in the log unless D1 has them. Answers the ids stored now. */
async function storeOlder(env: Bindings, scope: InAppScope, rows: InAppRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const held = new Set(
    (
      await existingNotifications(
        scope.db,
        scope.job.environmentId,
        rows.map((r) => r.id),
      )
    ).map((r) => r.id),
  );
  const missing = rows.filter((r) => !held.has(r.id));
  if (missing.length === 0) return new Set();
  return new Set(await unscopedLogs(env).feedInsert(missing.map(toFeedRow)));
}

/** Pushes new notifications to the subscribers with an open Inbox socket; the messages stay delivered if this fails. */
async function pushFresh(env: Pick<Bindings, "INBOX_SOCKETS">, scope: InAppScope, rows: InAppRow[]): Promise<void> {
  if (rows.length === 0) return;
  try {
    const results = await runBatch(
      scope.db,
      presentAmong(
        scope.db,
        scope.job.environmentId,
        rows.map((row) => row.subscriberId),
      ),
    );
    const present = new Set((results as { subscriberId: string }[][]).flat().map((r) => r.subscriberId));
    const reached = rows.filter((row) => present.has(row.subscriberId));
    if (reached.length) await inboxSockets(env.INBOX_SOCKETS).received(scope.job.environmentId, reached);
  } catch (error) {
    console.log(
      JSON.stringify({ level: "warn", event: "inbox_push_failed", environmentId: scope.job.environmentId, error: String(error) }),
    );
  }
}
