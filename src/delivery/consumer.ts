import { createDb } from "../db/client";
import { runBatch } from "../db/batch";
import type { TriggerStatus } from "../db/schema";
import type { TriggerRecord, TriggerState } from "../durable-objects/trigger-object";
import type { Bindings } from "../env";
import { triggerObject } from "../durable-objects/trigger-client";
import { triggerRecordWrites } from "../features/triggers/records";
import { inlineSubscribers } from "../features/triggers/inline-subscribers";
import { subscriberWrites } from "../features/subscribers/repository";
import { retryDelaySeconds } from "./backoff";
import { DeliveryJob } from "./job";

const STATUS_BY_STATE: Record<TriggerState, TriggerStatus> = {
  active: "accepted",
  cancelled: "cancelled",
  completed: "completed",
};

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

/**
 * Consumes a batch of delivery jobs: loads each trigger from its Durable Object, upserts the
 * subscribers given inline, and writes the triggers' queryable D1 records, all in one D1
 * batch. Jobs are acked only once that batch is written; a failure retries them with backoff.
 */
export async function consumeDeliveryBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const jobs: { message: Message<unknown>; job: DeliveryJob }[] = [];
  for (const message of batch.messages) {
    const parsed = DeliveryJob.safeParse(message.body);
    if (parsed.success) jobs.push({ message, job: parsed.data });
    else {
      log({ level: "error", event: "invalid_job", id: message.id, issues: parsed.error.issues.map((i) => i.message) });
      message.ack();
    }
  }

  const loaded = await Promise.allSettled(
    jobs.map(({ job }) => triggerObject(env, job.environmentId, job.transactionId).read()),
  );
  const ready: { message: Message<unknown>; record: TriggerRecord; state: TriggerState }[] = [];
  loaded.forEach((result, i) => {
    const { message, job } = jobs[i]!;
    if (result.status === "rejected") {
      log({ level: "warn", event: "trigger_read_failed", transactionId: job.transactionId, error: String(result.reason) });
      return message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
    if (!result.value) {
      log({ level: "error", event: "trigger_missing", transactionId: job.transactionId });
      return message.ack();
    }
    const { state, ...record } = result.value;
    ready.push({ message, record, state });
  });
  if (ready.length === 0) return;

  const db = createDb(env.DB);
  const now = new Date();
  try {
    const byEnvironment = Map.groupBy(
      ready.filter((r) => r.state === "active"),
      (r) => r.record.environmentId,
    );
    const upserts = [...byEnvironment].flatMap(
      ([environmentId, items]) => subscriberWrites(db, environmentId, items.flatMap((i) => inlineSubscribers(i.record)), now).statements,
    );
    await runBatch(db, [
      ...upserts,
      ...triggerRecordWrites(db, ready.map((r) => ({ record: r.record, status: STATUS_BY_STATE[r.state] })), now),
    ]);
  } catch (error) {
    log({ level: "error", event: "record_batch_failed", size: ready.length, error: String(error) });
    for (const r of ready) r.message.retry({ delaySeconds: retryDelaySeconds(r.message.attempts) });
    return;
  }
  for (const r of ready) r.message.ack();
}
