import { runBatch } from "../../db/batch";
import { type InAppInsert, type InAppRow, insertNotifications } from "../../db/queries/in-app";
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
}

/**
 * The in-app channel's "provider": Clarion stores the step's notifications (id = message id, so
 * a retried send stores nothing twice) in one D1 batch. A failed write is retried like any
 * provider's transient error, for every send of the batch alike. The same batch reads which of
 * the subscribers have an open Inbox socket (their presence); what was stored for those is then
 * pushed, one object call per present subscriber (the others' objects are never created); a failed
 * push is logged and the message stays delivered.
 */
export async function storeInApp(env: Pick<Bindings, "INBOX_SOCKETS">, scope: InAppScope, sends: InAppSend[]): Promise<SendResult[]> {
  if (sends.length === 0) return [];
  const now = new Date();
  // Only the columns a new notification sets: the insert fits its rows to D1's 100 bound parameters by this count.
  const rows = sends.map((send) => ({
    id: send.messageId,
    environmentId: scope.job.environmentId,
    subscriberId: send.subscriberId,
    transactionId: scope.job.transactionId,
    workflowKey: scope.trigger.workflowKey,
    stepId: scope.step.id,
    content: send.content as unknown as InAppContent,
    tags: [...(scope.workflowTags ?? [])],
    createdAt: now,
    updatedAt: now,
  })) satisfies InAppInsert[];
  const inserts = insertNotifications(scope.db, rows);
  const presence = presentAmong(
    scope.db,
    scope.job.environmentId,
    rows.map((row) => row.subscriberId),
  );
  const stored = await runBatch(scope.db, [...inserts, ...presence]).then(
    (results) => ({
      ids: new Set((results.slice(0, inserts.length) as { id: string }[][]).flat().map((r) => r.id)),
      present: new Set((results.slice(inserts.length) as { subscriberId: string }[][]).flat().map((r) => r.subscriberId)),
    }),
    (error: unknown) => String(error),
  );
  if (typeof stored !== "string") {
    await inboxSockets(env.INBOX_SOCKETS).received(
      scope.job.environmentId,
      rows
        .filter((row) => stored.ids.has(row.id) && stored.present.has(row.subscriberId))
        .map((row): InAppRow => ({ ...row, seenAt: null, readAt: null, archivedAt: null, snoozedUntil: null, completedAction: null })),
    );
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
