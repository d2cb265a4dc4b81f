import { createDb } from "../db/client";
import { chunk, runBatch } from "../db/batch";
import type { TriggerStatus } from "../db/schema";
import { triggerObject, type TriggerSnapshot } from "../durable-objects/trigger-client";
import type { TriggerState } from "../durable-objects/trigger-object";
import { deliveryQueueFor, type Bindings } from "../env";
import { subscriberWrites } from "../features/subscribers/repository";
import { inlineSubscribers } from "../features/triggers/inline-subscribers";
import { finishTrigger, triggerRecordWrites } from "../features/triggers/records";
import { retryDelaySeconds } from "./backoff";
import { DeliveryJob, RECIPIENTS_PER_JOB, type RecipientsJob } from "./job";
import { cancelRecipients } from "./close-recipients";
import { runRecipients } from "./recipients-job";
import type { EnvironmentCache } from "./recipients-state";
import { resolveRecipientIds } from "./resolve-recipients";

const STATUS_BY_STATE: Record<TriggerState, TriggerStatus> = {
  active: "processing",
  cancelled: "cancelled",
  completed: "completed",
};

/** Recipient chunks run a few at a time so one invocation stays inside its subrequest budget. */
const CHUNK_CONCURRENCY = 8;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

type Job<T extends DeliveryJob["type"]> = { message: Message<unknown>; job: Extract<DeliveryJob, { type: T }> };

/**
 * Consumes a batch of delivery jobs. Trigger jobs are recorded in D1 together (one batch for
 * every trigger's record and inline subscribers), then fanned out into recipient chunks;
 * chunks run the workflow. A job is acked only once its work is written; anything
 * unexpected retries it with backoff.
 */
export async function consumeDeliveryBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const triggers: Job<"trigger">[] = [];
  const chunks: Job<"recipients">[] = [];
  for (const message of batch.messages) {
    const parsed = DeliveryJob.safeParse(message.body);
    if (!parsed.success) {
      log({ level: "error", event: "invalid_job", id: message.id, issues: parsed.error.issues.map((i) => i.message) });
      message.ack();
    } else if (parsed.data.type === "trigger") triggers.push({ message, job: parsed.data });
    else chunks.push({ message, job: parsed.data });
  }
  const inline = await startTriggers(env, triggers);
  const environments: EnvironmentCache = new Map();
  await runLimited([...inline, ...chunks.map((c) => ({ ...c, snapshot: undefined }))], CHUNK_CONCURRENCY, (c) =>
    runChunk(env, c.message, c.job, environments, c.snapshot),
  );
}

const retry = (message: Message<unknown>, error: unknown, event: string) => {
  log({ level: "warn", event, id: message.id, attempts: message.attempts, error: String(error) });
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
};

/** Records triggers and fans them out; small triggers come back to run in this invocation. */
async function startTriggers(env: Bindings, jobs: Job<"trigger">[]) {
  const loaded = await Promise.allSettled(jobs.map(({ job }) => triggerObject(env, job.environmentId, job.transactionId).read()));
  const ready: (Job<"trigger"> & { snapshot: TriggerSnapshot })[] = [];
  loaded.forEach((result, i) => {
    const item = jobs[i]!;
    if (result.status === "rejected") return retry(item.message, result.reason, "trigger_read_failed");
    if (!result.value) {
      log({ level: "error", event: "trigger_missing", transactionId: item.job.transactionId });
      return item.message.ack();
    }
    ready.push({ ...item, snapshot: result.value });
  });
  if (ready.length === 0) return [];

  const db = createDb(env.DB);
  const now = new Date();
  try {
    const active = ready.filter((r) => r.snapshot.state === "active");
    const upserts = [...Map.groupBy(active, (r) => r.snapshot.environmentId)].flatMap(
      ([environmentId, items]) => subscriberWrites(db, environmentId, items.flatMap((i) => inlineSubscribers(i.snapshot)), now).statements,
    );
    const records = ready.map((r) => ({ record: r.snapshot, status: STATUS_BY_STATE[r.snapshot.state] }));
    await runBatch(db, [...upserts, ...triggerRecordWrites(db, records, now)]);
  } catch (error) {
    for (const r of ready) retry(r.message, error, "record_batch_failed");
    return [];
  }

  const inline: (Job<"recipients"> & { snapshot: TriggerSnapshot })[] = [];
  await Promise.all(
    ready.map(async (r) => {
      // Completed triggers are done; cancelled ones still fan out so every recipient gets its cancelled messages.
      if (r.snapshot.state === "completed") return r.message.ack();
      try {
        const ids = await resolveRecipientIds(db, r.snapshot);
        const jobs: RecipientsJob[] = chunk(ids, RECIPIENTS_PER_JOB).map((subscriberIds, index) => ({
          v: 1,
          type: "recipients",
          environmentId: r.job.environmentId,
          transactionId: r.job.transactionId,
          chunk: index,
          subscriberIds,
        }));
        const object = triggerObject(env, r.job.environmentId, r.job.transactionId);
        const completed = await object.expectChunks(jobs.map((j) => j.subscriberIds.length));
        if (jobs.length === 0) {
          if (completed) await finishTrigger(db, r.job.environmentId, r.job.transactionId, "completed");
          return r.message.ack();
        }
        if (jobs.length === 1) return inline.push({ message: r.message, job: jobs[0]!, snapshot: r.snapshot });
        const queue = deliveryQueueFor(env, r.job.transactionId);
        for (const part of chunk(jobs, 100)) await queue.sendBatch(part.map((body) => ({ body })));
        r.message.ack();
      } catch (error) {
        retry(r.message, error, "fan_out_failed");
      }
    }),
  );
  return inline;
}

/** Runs one chunk of recipients; re-enqueues those waiting for a retry and finishes the trigger when it is the last. */
async function runChunk(env: Bindings, message: Message<unknown>, job: RecipientsJob, environments: EnvironmentCache, known?: TriggerSnapshot) {
  try {
    const object = triggerObject(env, job.environmentId, job.transactionId);
    const snapshot = known ?? (await object.read());
    if (!snapshot) return message.ack();
    if (snapshot.state === "cancelled") {
      await cancelRecipients(env, job, snapshot);
      await object.recipientsDone(job.chunk, job.subscriberIds);
      return message.ack();
    }
    const result = await runRecipients(env, job, snapshot, env.PUBLIC_URL, environments);
    if (result.exhausted.length) {
      await env.DEAD_LETTER_QUEUE.sendBatch(result.exhausted.map((letter) => ({ body: { job, ...letter } })));
    }
    if (result.retry) {
      await deliveryQueueFor(env, job.transactionId).send(
        { ...job, subscriberIds: result.retry.subscriberIds },
        { delaySeconds: result.retry.delaySeconds },
      );
    }
    if (result.completed) await finishTrigger(createDb(env.DB), job.environmentId, job.transactionId, "completed");
    message.ack();
  } catch (error) {
    retry(message, error, "chunk_failed");
  }
}

async function runLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}
