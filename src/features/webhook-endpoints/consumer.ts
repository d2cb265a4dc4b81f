import { and, eq, inArray } from "drizzle-orm";
import { chunk } from "../../db/batch";
import { createDb, type Db } from "../../db/client";
import { environments, events, webhookEndpoints } from "../../db/schema";
import type { Bindings } from "../../env";
import { takesEvent } from "./repository";
import { deliverEvent } from "./deliver";
import { WebhookJob } from "../../delivery/webhooks/job";

type Job<T extends WebhookJob["type"]> = { message: Message<unknown>; job: Extract<WebhookJob, { type: T }> };

/** Messages per Queue `sendBatch` call (the platform's limit). */
const SEND_BATCH = 100;

const log = (entry: Record<string, unknown>) => console.log(JSON.stringify(entry));

/** Turns named events into one `deliver` job per endpoint that takes their type, then marks them dispatched. */
async function dispatch(env: Bindings, db: Db, { job }: Job<"dispatch">): Promise<void> {
  const [rows, endpoints] = await db.batch([
    db
      .select({ id: events.id, type: events.type })
      .from(events)
      .where(and(eq(events.environmentId, job.environmentId), inArray(events.id, job.eventIds))),
    db
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.environmentId, job.environmentId), eq(webhookEndpoints.enabled, true))),
  ]);
  const deliveries = rows.flatMap((event) =>
    endpoints
      .filter((endpoint) => takesEvent(endpoint, event.type))
      .map((endpoint) => ({
        body: { type: "deliver", environmentId: job.environmentId, eventId: event.id, endpointId: endpoint.id } satisfies WebhookJob,
      })),
  );
  for (const part of chunk(deliveries, SEND_BATCH)) await env.WEBHOOK_QUEUE.sendBatch(part);
  if (rows.length)
    await db
      .update(events)
      .set({ dispatchedAt: new Date() })
      .where(
        and(
          eq(events.environmentId, job.environmentId),
          inArray(
            events.id,
            rows.map((r) => r.id),
          ),
        ),
      );
}

/** One attempt; the Queue's own retry (with the Svix delay) makes the next. */
async function deliver(env: Bindings, db: Db, { message, job }: Job<"deliver">): Promise<void> {
  const [eventRows, endpointRows, environmentRows] = await db.batch([
    db
      .select()
      .from(events)
      .where(and(eq(events.environmentId, job.environmentId), eq(events.id, job.eventId))),
    db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.environmentId, job.environmentId), eq(webhookEndpoints.id, job.endpointId))),
    db.select({ slug: environments.slug }).from(environments).where(eq(environments.id, job.environmentId)),
  ]);
  const [event] = eventRows;
  const [endpoint] = endpointRows;
  const [environment] = environmentRows;
  // Deleted or turned off since it was queued (or the event expired): nothing left to send.
  if (!event || !endpoint?.enabled || !environment) {
    message.ack();
    return;
  }
  const { retryInSeconds } = await deliverEvent(env, db, { environmentSlug: environment.slug, endpoint, event, attempt: message.attempts });
  if (retryInSeconds === null) message.ack();
  else message.retry({ delaySeconds: retryInSeconds });
}

/** The webhook Queue's consumer: each message is acked when done, retried when not, never acked on error. */
export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const db = createDb(env.DB);
  await Promise.all(
    batch.messages.map(async (message) => {
      const parsed = WebhookJob.safeParse(message.body);
      if (!parsed.success) {
        log({ level: "error", event: "invalid_webhook_job", id: message.id });
        message.ack();
        return;
      }
      try {
        if (parsed.data.type === "dispatch") {
          await dispatch(env, db, { message, job: parsed.data });
          message.ack();
        } else await deliver(env, db, { message, job: parsed.data });
      } catch (error) {
        log({ level: "error", event: "webhook_job_failed", id: message.id, error: String(error) });
        message.retry({ delaySeconds: 5 });
      }
    }),
  );
}
