import { runBatch } from "../db/batch";
import { type InAppInsert, insertNotifications } from "../db/queries/in-app";
import type { InAppContent } from "../engine/content";
import type { SendResult } from "./send-message";
import type { StepScope } from "./phases/scope";

/** One in_app send: its message id (the notification's id too), subscriber and rendered content. */
export interface InAppSend {
  messageId: string;
  subscriberId: string;
  content: Record<string, unknown>;
}

/**
 * The in-app channel's "provider": Clarion stores the step's notifications (id = message id, so
 * a retried send stores nothing twice) in one D1 batch. A failed write is retried like any
 * provider's transient error, for every send of the batch alike.
 */
export async function storeInApp(scope: StepScope, sends: InAppSend[]): Promise<SendResult[]> {
  if (sends.length === 0) return [];
  const now = new Date();
  const rows: InAppInsert[] = sends.map((send) => ({
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
  }));
  const failure = await runBatch(scope.db, insertNotifications(scope.db, rows)).then(
    () => null,
    (error: unknown) => String(error),
  );
  return sends.map((send) => ({
    outcome:
      failure === null
        ? { ok: true, providerMessageId: send.messageId }
        : { ok: false, kind: "retryable", code: "in_app_store_failed", message: failure },
    captures: [],
    invalidAddresses: [],
  }));
}
