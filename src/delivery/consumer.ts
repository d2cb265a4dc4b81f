import { chunk, runBatch } from "../db/batch";
import type { TriggerStatus } from "../db/schema";
import type { FanOut, FanOutResult } from "../durable-objects/client/trigger-store";
import type { Bindings } from "../env";
import { deliveryQueueFor } from "../jobs/queues";
import { subscriberWrites } from "../db/queries/subscribers";
import { inlineSubscribers } from "./recipients/inline-subscribers";
import { inlineTenantWrites } from "./writes/tenant-writes";
import { logTrigger } from "./writes/trigger-writes";
import { retryDelaySeconds } from "./backoff";
import { cancelRecipients, eraseRecipients } from "./recipients/close-recipients";
import { DeliveryContext } from "./context";
import { DeliveryJob, RECIPIENTS_PER_JOB, type RecipientsJob } from "../jobs/job";
import { runRecipients } from "./phases/run-recipients";
import { eraseEnvironments } from "./erase-environment";
import { unpack } from "./unpack";
import { sendInBatches } from "../jobs/pack";
import { resolveRecipientIds } from "./recipients/resolve-recipients";
import type { TriggerSnapshot, TriggerState } from "../jobs/trigger-record";
import type { DeliveryServices } from "./child-triggers";
import { inHopSpan } from "../lib/spans";

const STATUS_BY_STATE: Record<TriggerState, TriggerStatus> = {
  accepted: "processing",
  cancelled: "cancelled",
  completed: "completed",
  failed: "failed",
};

/**
 * Recipients in flight at once in one invocation, over all its chunks: 100 chunks of 50, as
 * many provider calls as ran together when chunks were counted rather than weighed. The chunks
 * running together share their D1 batches and object calls phase by phase (DeliveryContext): a
 * batch of 400 one-recipient triggers runs as one wave, with one call per log shard and one
 * recipients' read, not four waves of 100 with four of each.
 */
const RECIPIENTS_IN_FLIGHT = 5_000;

const log = (fields: Record<string, unknown>) => console.log(JSON.stringify(fields));

type Job<T extends DeliveryJob["type"]> = { message: Message<unknown>; job: Extract<DeliveryJob, { type: T }> };

/**
 * Consumes a batch of delivery jobs. Trigger jobs are recorded together (their records in the
 * log, one call per shard; their inline subscribers in one D1 batch), then fanned out into recipient chunks;
 * chunks run the workflow. A job is acked only once its work is written; anything
 * unexpected retries it with backoff.
 */
export async function consumeDeliveryBatch(batch: MessageBatch<unknown>, env: Bindings, services?: DeliveryServices): Promise<void> {
  const { messages, settle } = unpack(batch, env);
  const triggers: Job<"trigger">[] = [];
  const chunks: Job<"recipients">[] = [];
  const erasures: Job<"erase-environment">[] = [];
  for (const message of messages) {
    const parsed = DeliveryJob.safeParse(message.body);
    if (!parsed.success) {
      log({ level: "error", event: "invalid_job", id: message.id, issues: parsed.error.issues.map((i) => i.message) });
      message.ack();
    } else if (parsed.data.type === "trigger") triggers.push({ message, job: parsed.data });
    else if (parsed.data.type === "erase-environment") erasures.push({ message, job: parsed.data });
    else chunks.push({ message, job: parsed.data });
  }
  const ctx = new DeliveryContext(env, services);
  const started = Date.now();
  const erased = eraseEnvironments(ctx.logs, erasures);
  const inline = await startTriggers(ctx, triggers);
  const fannedOut = Date.now();
  await runWeighed(
    [...inline, ...chunks.map((c) => ({ ...c, snapshot: undefined }))],
    RECIPIENTS_IN_FLIGHT,
    (c) => c.job.subscriberIds.length,
    (c) => runChunk(ctx, c.message, c.job, c.snapshot),
  );
  await erased;
  await settle();
  await ctx.flushEvents();
  // Large batches only: what an operator (and the delivery benchmark) reads to see where a batch's time went.
  if (messages.length >= 20) {
    log({
      level: "info",
      event: "delivery_batch",
      queue: batch.queue,
      triggers: triggers.length,
      chunks: chunks.length,
      startMs: fannedOut - started,
      runMs: Date.now() - fannedOut,
      ...ctx.costs,
    });
  }
}

const retry = (message: Message<unknown>, error: unknown, event: string) => {
  log({ level: "warn", event, id: message.id, attempts: message.attempts, error: String(error) });
  message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
};

/** How a trigger fans out: what its ledger records (no chunks when a coordinator holds them) and the chunks to run. */
interface Plan {
  fanOut: FanOut;
  chunks: string[][];
}

/** Records triggers and fans them out; triggers of one chunk come back to run in this invocation. */
async function startTriggers(ctx: DeliveryContext, jobs: Job<"trigger">[]) {
  const ready = await readTriggers(ctx, jobs);
  if (ready.length === 0) return [];
  const recorded = await recordAll(ctx, ready);
  if (recorded.length === 0) return [];
  // Completed and failed triggers are done; cancelled ones still fan out so every recipient gets its cancelled messages.
  const live = recorded.filter((r) => {
    if (r.snapshot.state === "completed" || r.snapshot.state === "failed") r.message.ack();
    else return true;
    return false;
  });
  const planned = await Promise.allSettled(live.map((r) => planFanOut(ctx, r)));
  const fannedOut = await recordFanOuts(
    ctx,
    live.map((r, i) => ({ r, plan: planned[i]! })),
  );
  const inline: (Job<"recipients"> & { snapshot: TriggerSnapshot })[] = [];
  await Promise.all(fannedOut.map((f) => runOrEnqueue(ctx, f, inline)));
  return inline;
}

/** The triggers of the jobs, read back from their ledgers (one call per shard); a job whose read failed retries. */
async function readTriggers(ctx: DeliveryContext, jobs: Job<"trigger">[]): Promise<Ready[]> {
  const loaded = await Promise.allSettled(jobs.map(({ job }) => ctx.snapshot(job)));
  const ready: Ready[] = [];
  for (const [i, result] of loaded.entries()) {
    const item = jobs[i]!;
    if (result.status === "rejected") {
      retry(item.message, result.reason, "trigger_read_failed");
      continue;
    }
    if (!result.value) {
      // Forgotten after its idempotency window, or never accepted: nothing to do.
      log({ level: "warn", event: "trigger_missing", transactionId: item.job.transactionId });
      item.message.ack();
      continue;
    }
    ready.push({ ...item, snapshot: result.value });
  }
  return ready;
}

/** A trigger's recipients in chunks; a large fan-out gets its own coordinator, so its many chunk calls never make the shard hot. */
async function planFanOut(ctx: DeliveryContext, r: Ready): Promise<Plan> {
  const { environmentId, transactionId } = r.snapshot;
  const resolved = chunk(await resolveRecipientIds(ctx.db, r.snapshot), RECIPIENTS_PER_JOB);
  if (resolved.length <= 1) return { fanOut: { environmentId, transactionId, chunks: resolved }, chunks: resolved };
  // A redelivered job runs the chunks the coordinator took first, not a second resolution.
  const stored = await ctx.store.coordinatorOf(environmentId, transactionId).init(r.snapshot.ledger, resolved);
  return { fanOut: { environmentId, transactionId, chunks: null }, chunks: stored ?? resolved };
}

type Planned = { r: Ready; plan: PromiseSettledResult<Plan> };
type FannedOut = { r: Ready; plan: Plan; result: FanOutResult };

/** Records how each trigger fans out, one call per ledger shard; a trigger whose plan or call failed retries. */
async function recordFanOuts(ctx: DeliveryContext, items: Planned[]): Promise<FannedOut[]> {
  const byLedger = await Promise.all(
    [...Map.groupBy(items, ({ r }) => r.snapshot.ledger)].map(async ([ledger, group]) => {
      const ok = group.filter((i) => i.plan.status === "fulfilled");
      for (const i of group) if (i.plan.status === "rejected") retry(i.r.message, i.plan.reason, "fan_out_failed");
      if (ok.length === 0) return [];
      try {
        const plans = ok.map((i) => (i.plan as PromiseFulfilledResult<Plan>).value);
        const results = await ctx.store.fanOut(
          ledger,
          plans.map((p) => p.fanOut),
        );
        return ok.map((i, n) => ({ r: i.r, plan: plans[n]!, result: results[n]! }));
      } catch (error) {
        for (const i of ok) retry(i.r.message, error, "fan_out_failed");
        return [];
      }
    }),
  );
  return byLedger.flat();
}

/** A fanned-out trigger: finished, its one chunk kept to run in this invocation (`inline`), or its chunks queued. */
async function runOrEnqueue(
  ctx: DeliveryContext,
  { r, plan, result }: FannedOut,
  inline: (Job<"recipients"> & { snapshot: TriggerSnapshot })[],
) {
  try {
    const { environmentId, transactionId } = r.snapshot;
    const snapshot: TriggerSnapshot = {
      ...r.snapshot,
      state: result.state === "cancelled" ? "cancelled" : r.snapshot.state,
      coordinated: result.chunks === null,
    };
    if (snapshot.coordinated && result.state === "cancelled") await ctx.store.coordinatorOf(environmentId, transactionId).cancel();
    if (result.completed) {
      await ctx.finish(environmentId, transactionId, "completed");
      return r.message.ack();
    }
    const chunks = result.chunks ?? plan.chunks;
    const jobs: RecipientsJob[] = chunks.map((subscriberIds, index) => ({
      v: 1,
      type: "recipients",
      environmentId,
      transactionId,
      ledger: snapshot.ledger,
      chunk: index,
      subscriberIds,
    }));
    if (jobs.length === 0) return r.message.ack();
    if (jobs.length === 1) {
      if (result.first) ctx.firstRun(environmentId, transactionId);
      return inline.push({ message: r.message, job: jobs[0]!, snapshot });
    }
    await sendInBatches(deliveryQueueFor(ctx.env, transactionId), jobs);
    r.message.ack();
  } catch (error) {
    retry(r.message, error, "fan_out_failed");
  }
}

type Ready = Job<"trigger"> & { snapshot: TriggerSnapshot };

/** The D1 writes that upsert triggers' inline subscribers, one statement per environment. */
function subscriberUpserts(ctx: DeliveryContext, items: Ready[], now: Date) {
  const active = items.filter((r) => r.snapshot.state === "accepted");
  return [...Map.groupBy(active, (r) => r.snapshot.environmentId)].flatMap(
    ([environmentId, group]) =>
      subscriberWrites(
        ctx.db,
        environmentId,
        group.flatMap((i) => inlineSubscribers(i.snapshot)),
        now,
      ).statements,
  );
}

/** Records triggers in the log (one call per shard) and upserts their inline subscribers in D1 (one batch), together. */
async function recordWrites(ctx: DeliveryContext, items: Ready[], now: Date) {
  const records = items.map((r) => logTrigger({ record: r.snapshot, status: STATUS_BY_STATE[r.snapshot.state] }, now.getTime()));
  const tenants = inlineTenantWrites(
    ctx.db,
    items.filter((r) => r.snapshot.state === "accepted").map((r) => r.snapshot),
    now,
  );
  await Promise.all([ctx.logs.recordTriggers(records, false), runBatch(ctx.db, [...subscriberUpserts(ctx, items, now), ...tenants])]);
}

/**
 * Records every trigger together. A D1 batch is atomic, so one trigger whose writes fail would
 * fail them all: then each is written on its own and only those that fail retry.
 */
async function recordAll(ctx: DeliveryContext, ready: Ready[]): Promise<Ready[]> {
  const now = new Date();
  try {
    await recordWrites(ctx, ready, now);
    return ready;
  } catch (error) {
    if (ready.length === 1) {
      retry(ready[0]!.message, error, "record_batch_failed");
      return [];
    }
  }
  const alone = await Promise.allSettled(ready.map((r) => recordWrites(ctx, [r], now)));
  return ready.filter((r, i) => {
    const result = alone[i]!;
    if (result.status === "rejected") retry(r.message, result.reason, "record_batch_failed");
    return result.status === "fulfilled";
  });
}

/** Runs one chunk of recipients; re-enqueues those waiting for a retry and finishes the trigger when it is the last. */
async function runChunk(ctx: DeliveryContext, message: Message<unknown>, job: RecipientsJob, known?: TriggerSnapshot) {
  const { env } = ctx;
  try {
    const snapshot = known ?? (await ctx.snapshot(job));
    if (!snapshot) return message.ack();
    if (job.erased) {
      await eraseRecipients(ctx, job, snapshot);
      const completed = await ctx.home(snapshot).recipientsDone(job.chunk, job.subscriberIds);
      if (completed) await ctx.finish(job.environmentId, job.transactionId, "completed");
      return message.ack();
    }
    if (snapshot.state === "cancelled") {
      await cancelRecipients(ctx, job, snapshot);
      await ctx.home(snapshot).recipientsDone(job.chunk, job.subscriberIds);
      return message.ack();
    }
    const hop = { environmentId: job.environmentId, workflow: snapshot.workflowKey, transactionId: job.transactionId };
    const result = await inHopSpan("clarion.delivery.run", hop, (span) => runRecipients(ctx, job, snapshot, span.isTraced));
    if (result.exhausted.length) {
      await env.DEAD_LETTER_QUEUE.sendBatch(result.exhausted.map((letter) => ({ body: { job, ...letter } })));
    }
    if (result.retry) {
      await deliveryQueueFor(env, job.transactionId).send(
        { ...job, ledger: snapshot.ledger, subscriberIds: result.retry.subscriberIds },
        { delaySeconds: result.retry.delaySeconds },
      );
    }
    if (result.completed) {
      await ctx.finish(job.environmentId, job.transactionId, result.workflowGone ? "failed" : "completed");
    }
    message.ack();
  } catch (error) {
    retry(message, error, "chunk_failed");
  }
}

/**
 * Runs the items in order, as many at once as their weights fit in `budget` (one heavier than
 * the budget runs alone); `work` never rejects.
 */
function runWeighed<T>(items: T[], budget: number, weight: (item: T) => number, work: (item: T) => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    let running = 0;
    let used = 0;
    const pump = () => {
      while (next < items.length) {
        const item = items[next]!;
        const w = Math.min(Math.max(1, weight(item)), budget);
        if (running > 0 && used + w > budget) break;
        next++;
        running++;
        used += w;
        void work(item).then(() => {
          running--;
          used -= w;
          pump();
        });
      }
      if (running === 0) resolve();
    };
    pump();
  });
}
