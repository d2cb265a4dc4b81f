import { chunk } from "../../../db/batch";
import type { Db } from "../../../db/client";
import { unscopedDb } from "../../../db/unscoped";
import type { Bindings } from "../../../env";
import { takesEvent, takesTenant } from "./repository";
import { attemptDelivery } from "./deliver";
import { deliveryReads, dispatchReads, type LastAttempt, markDispatched } from "./consumer-repository";
import { runBatch } from "../../../db/batch";
import { dispatchWritten, eventStatements } from "../record";
import { WebhookJob } from "../../../jobs/webhook-job";

type Job<T extends WebhookJob["type"]> = { message: Message<unknown>; job: Extract<WebhookJob, { type: T }> };

/** Messages per Queue `sendBatch` call (the platform's limit). */
const SEND_BATCH = 100;

const log = (entry: Record<string, unknown>) => console.log(JSON.stringify(entry));

/** Turns named events into one `deliver` job per endpoint that takes their type, then marks them dispatched. */
async function dispatch(env: Bindings, db: Db, { job }: Job<"dispatch">): Promise<void> {
  const { rows, endpoints } = await dispatchReads(db, job.environmentId, job.eventIds);
  const deliveries = rows.flatMap((event) =>
    endpoints
      .filter((endpoint) => takesEvent(endpoint, event.type) && takesTenant(endpoint, event.tenant))
      .map((endpoint) => ({
        body: { type: "deliver", environmentId: job.environmentId, eventId: event.id, endpointId: endpoint.id } satisfies WebhookJob,
      })),
  );
  for (const part of chunk(deliveries, SEND_BATCH)) await env.WEBHOOK_QUEUE.sendBatch(part);
  await markDispatched(
    db,
    job.environmentId,
    rows.map((r) => r.id),
  );
}

/**
 * Whether no retry is due after this attempt: it succeeded, or no next try followed it (the last
 * one, or cancelled by a replay that queued the event anew). No attempt at all (the earlier tries
 * failed before logging one): the retry is due.
 */
const settled = (last: LastAttempt | undefined) => last !== undefined && (last.status === "succeeded" || last.nextAttemptAt === null);

/**
 * One attempt per `deliver` job of the batch: the events, endpoints and environments read in one
 * D1 batch, the sends made in parallel, every attempt logged in one D1 batch; then each message is
 * acked, or retried by the Queue with the Svix delay (its `attempts` count the tries).
 */
async function deliverAll(env: Bindings, db: Db, jobs: Job<"deliver">[]): Promise<void> {
  if (jobs.length === 0) return;
  const { eventOf, endpointOf, slugOf, lastAttemptOf } = await deliveryReads(
    db,
    jobs.map((j) => j.job),
    jobs.filter((j) => j.message.attempts > 1).map((j) => j.job),
  );
  const now = new Date();
  const attempted = await Promise.all(
    jobs.map(async ({ message, job }) => {
      const event = eventOf.get(`${job.environmentId}:${job.eventId}`);
      const endpoint = endpointOf.get(`${job.environmentId}:${job.endpointId}`);
      const environmentSlug = slugOf.get(job.environmentId);
      // Deleted or turned off since it was queued (or the event expired): nothing left to send.
      if (!event || !endpoint?.enabled || environmentSlug === undefined) return { message, result: null };
      // A retry whose delivery was settled meanwhile: delivered, or its retries cancelled by a replay or resend.
      if (message.attempts > 1 && settled(lastAttemptOf.get(`${job.environmentId}:${job.eventId}:${job.endpointId}`)))
        return { message, result: null };
      try {
        return { message, result: await attemptDelivery(env, db, { environmentSlug, endpoint, event, attempt: message.attempts }, now) };
      } catch (error) {
        // This delivery alone is tried again; the others' attempts are logged.
        log({ level: "error", event: "webhook_job_failed", id: message.id, error: String(error) });
        return { message, result: { statements: [], disabled: null, retryInSeconds: 5 } };
      }
    }),
  );
  // Two failed attempts to one endpoint may both turn it off: it is turned off, and announced, once.
  const disabled = [
    ...new Map(attempted.flatMap((a) => (a.result?.disabled ? [[a.result.disabled.data.endpointId, a.result.disabled]] : []))).values(),
  ];
  await runBatch(db, [...attempted.flatMap((a) => a.result?.statements ?? []), ...eventStatements(db, disabled)]);
  await dispatchWritten(env, disabled);
  for (const { message, result } of attempted) {
    if (result?.retryInSeconds == null) message.ack();
    else message.retry({ delaySeconds: result.retryInSeconds });
  }
}

/** The webhook Queue's consumer: each message is acked when done, retried when not, never acked on error. */
export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const db = unscopedDb(env);
  const deliveries: Job<"deliver">[] = [];
  const dispatches = batch.messages.map(async (message) => {
    const parsed = WebhookJob.safeParse(message.body);
    if (!parsed.success) {
      log({ level: "error", event: "invalid_webhook_job", id: message.id });
      message.ack();
      return;
    }
    if (parsed.data.type === "deliver") {
      deliveries.push({ message, job: parsed.data });
      return;
    }
    try {
      await dispatch(env, db, { message, job: parsed.data });
      message.ack();
    } catch (error) {
      log({ level: "error", event: "webhook_job_failed", id: message.id, error: String(error) });
      message.retry({ delaySeconds: 5 });
    }
  });
  await Promise.all(dispatches);
  try {
    await deliverAll(env, db, deliveries);
  } catch (error) {
    // Nothing of the batch's log was written: every delivery is tried again (at least once).
    log({ level: "error", event: "webhook_deliveries_failed", count: deliveries.length, error: String(error) });
    for (const { message } of deliveries) message.retry({ delaySeconds: 5 });
  }
}
