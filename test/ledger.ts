import { createExecutionContext, createMessageBatch, env, evictDurableObject, getQueueResult, runInDurableObject } from "cloudflare:test";
import worker from "../src/index";
import type { TriggerRecord, TriggerSnapshot } from "../src/jobs/trigger-record";
import { triggerJob } from "../src/jobs/job";
import { loadWorkflowGates, prepareTrigger } from "../src/features/triggers/accept";
import { coordinatorName, digestName, ledgerNameFor } from "../src/durable-objects/client/naming";
import type { TriggerLedger } from "../src/durable-objects/ledger/trigger-ledger";
import type { AcceptEntry, AcceptOutcome } from "../src/durable-objects/ledger/outcomes";
import type { FanOutCoordinator } from "../src/durable-objects/fan-out-coordinator";
import type { DigestObject } from "../src/durable-objects/digest-object";
import { dataOf } from "../src/features/data";

// Tests reach into the objects' storage (runInDurableObject), so they build the stubs the app's TriggerStore keeps to itself.
/** The ledger shard a trigger lives in. */
export const ledgerOf = (environmentId: string, transactionId: string) =>
  env.LEDGERS.get(env.LEDGERS.idFromName(ledgerNameFor(env, environmentId, transactionId)));

/** A large fan-out's coordinator. */
export const coordinatorOf = (environmentId: string, transactionId: string) =>
  env.COORDINATORS.get(env.COORDINATORS.idFromName(coordinatorName(environmentId, transactionId)));

/** The digest of one subscriber, workflow and digest key. */
export const digestOf = (environmentId: string, workflowKey: string, subscriberId: string, key: string) =>
  env.DIGESTS.get(env.DIGESTS.idFromName(digestName(environmentId, workflowKey, subscriberId, key)));

/** A count from a digest's tables, 0 before its first call made them. */
const digestCount = (digest: DurableObjectStub<DigestObject>, sql: string, ...params: string[]) =>
  runInDurableObject(digest, async (_d: DigestObject, state) =>
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'entries'").toArray().length
      ? state.storage.sql.exec<{ n: number }>(sql, ...params).one().n
      : 0,
  );

/** How many triggers wait in a digest's open window. */
export const digestWaiting = (digest: DurableObjectStub<DigestObject>) => digestCount(digest, "SELECT count(*) AS n FROM entries");

/** Whether the digest answered this trigger (it waits, or went on at once). */
export const digestDecided = async (digest: DurableObjectStub<DigestObject>, transactionId: string) =>
  (await digestCount(digest, "SELECT count(*) AS n FROM decisions WHERE tx = ?", transactionId)) > 0;

/** A trigger as its ledger holds it, or null: what the API's accept and cancel decided. */
export async function readTrigger(environmentId: string, transactionId: string): Promise<TriggerSnapshot | null> {
  const [snapshot] = (await ledgerOf(environmentId, transactionId).snapshots([
    { environmentId, transactionId },
  ])) as (TriggerSnapshot | null)[];
  return snapshot ?? null;
}

/**
 * Runs the ledger's alarm duties as if it were `now` (flush, release due waits, watchdog,
 * purge): the objects take their time as an argument, so tests move it instead of sleeping.
 */
export const tickLedger = (environmentId: string, transactionId: string, now: number) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => ledger.tick(now));

/**
 * Releases a trigger's parked waits due by `now` into its ledger's outbox, as the alarm would,
 * without flushing them to the Queue: `deliverHeldJobs` then runs them through the consumer.
 */
export const releaseWaits = (environmentId: string, transactionId: string, now: number) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    const due = state.storage.sql
      .exec<{ id: number; job: string }>("SELECT id, job FROM waits WHERE released = 0 AND tx = ? AND fire_at <= ?", transactionId, now)
      .toArray();
    for (const row of due) {
      state.storage.sql.exec("UPDATE waits SET released = 1 WHERE id = ?", row.id);
      state.storage.sql.exec("INSERT INTO outbox (tx, job) VALUES (?, ?)", transactionId, row.job);
    }
    return due.length;
  });

/**
 * Keeps the outbox of a trigger's ledger shard from sending on its own what a request adds to it
 * later (a signal's or a message status's resumed job, which `sendSoon` would hand to the Queue
 * moments later): the test runs those jobs itself with `deliverHeldJobs`, never racing a Queue
 * consumer over the same job. Answers the function that lets the shard send again.
 */
export async function holdOutbox(environmentId: string, transactionId: string): Promise<() => Promise<void>> {
  type Held = { parts: { outbox: { sendSoon?: (now: number) => Promise<void> } } };
  await runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => {
    // An own property shadows the class's method on this instance only; deleting it restores the method.
    Object.defineProperty((ledger as unknown as Held).parts.outbox, "sendSoon", {
      value: async () => undefined,
      configurable: true,
      writable: true,
    });
  });
  // A new stub: another trigger held in the same shard since (`acceptInto`) ended the instance the
  // first stub reached, and a call through that stub answers the instance's end ("simulated crash").
  // The instance it reaches now may be a new one, without the hold: deleting it then does nothing.
  return async () => {
    await runInDurableObject(ledgerOf(environmentId, transactionId), (ledger: TriggerLedger) => {
      delete (ledger as unknown as Held).parts.outbox.sendSoon;
    });
  };
}

/** Releases a trigger's waits due by `now` and runs them through the consumer (`releaseWaits`, `deliverHeldJobs`). */
export async function deliverWaitsDue(environmentId: string, transactionId: string, now: number) {
  const released = await releaseWaits(environmentId, transactionId, now);
  if (released === 0) throw new Error(`no wait of ${transactionId} is due by ${new Date(now).toISOString()}`);
  return deliverHeldJobs(environmentId, transactionId);
}

export const tickCoordinator = (environmentId: string, transactionId: string, now: number) =>
  runInDurableObject(coordinatorOf(environmentId, transactionId), (coordinator: FanOutCoordinator) => coordinator.tick(now));

/**
 * Accepts a trigger straight into its ledger and, in the same turn inside the object, does
 * what a crash right after the 202 would leave: the alarm that flushes the outbox never runs;
 * with `loseJob`, the job also left the outbox and was lost by the Queue. `record` changes what
 * is stored (a record the consumer cannot write, say); `transactionId` is the client's, as a request would give it.
 */
export async function acceptThenCrash(
  environmentId: string,
  workflowKey: string,
  to: unknown,
  options: { loseJob?: boolean; record?: (record: TriggerRecord) => TriggerRecord; topics?: string[]; transactionId?: string } = {},
) {
  const gates = await loadWorkflowGates(dataOf(env, environmentId), [workflowKey]);
  const prepared = await prepareTrigger(
    environmentId,
    { workflow: workflowKey, to: to as string, ...(options.transactionId ? { transactionId: options.transactionId } : {}) },
    gates.get(workflowKey),
    new Set(options.topics),
    Date.now(),
  );
  const name = ledgerNameFor(env, environmentId, prepared.transactionId);
  const record = options.record ? options.record(prepared.record) : prepared.record;
  const [outcome] = await acceptInto(name, [{ record, fingerprint: prepared.fingerprint }], options);
  if (outcome !== "accepted") throw new Error(`the ledger answered ${outcome}`);
  return { transactionId: prepared.transactionId, ledger: name };
}

/**
 * Accepts into the ledger shard `name` and, in the same turn inside the object, does what a crash
 * right after the accept would leave: the alarm that flushes the outbox never runs, so the jobs
 * stay there until a test hands them to the consumer (`deliverHeldJobs`); with `loseJob`, the jobs
 * also left the outbox and were lost by the Queue.
 */
export async function acceptInto(name: string, entries: AcceptEntry[], options: { loseJob?: boolean } = {}) {
  const ledger = env.LEDGERS.get(env.LEDGERS.idFromName(name));
  let outcomes: AcceptOutcome[] | undefined;
  const crash = runInDurableObject(ledger, async (instance: TriggerLedger, state) => {
    outcomes = await instance.accept(name, entries);
    await state.storage.deleteAlarm();
    if (options.loseJob) state.storage.sql.exec("DELETE FROM outbox");
    await state.storage.sync();
    // The object dies here, with its in-memory flush timer: only what storage holds survives.
    state.abort("simulated crash");
  });
  await crash.catch(() => undefined);
  await evictDurableObject(ledger).catch(() => undefined);
  if (!outcomes) throw new Error(`the ledger ${name} did not answer the accept`);
  return outcomes;
}

/**
 * How many jobs the trigger's ledger has ever written to its outbox: AUTOINCREMENT's counter, which
 * the alarm's deletes of sent rows leave alone. Unchanged across a request proves the request
 * enqueued nothing, with no wait for what the Queue would have done with it.
 */
export const outboxWrites = (environmentId: string, transactionId: string) =>
  runInDurableObject(
    ledgerOf(environmentId, transactionId),
    (_ledger: TriggerLedger, state) =>
      state.storage.sql.exec<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").toArray()[0]?.seq ?? 0,
  );

/**
 * Hands the jobs a held trigger (`acceptThenCrash`) left in its ledger's outbox to the Worker's
 * Queue consumer now, and returns once the consumer is done with them: what the Queue would have
 * delivered, at the moment the test chooses, with nothing left in flight. `bindings` are the
 * consumer's (the webhook Queue held by test/webhook-queue.ts, say).
 */
export async function deliverHeldJobs(
  environmentId: string,
  transactionId: string,
  bindings: typeof env = env,
  /** The delivery queue the batch comes from: any of them runs any job. */
  queueName = "clarion-delivery-0",
) {
  const jobs = await runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    const rows = state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ? ORDER BY id", transactionId).toArray();
    state.storage.sql.exec("DELETE FROM outbox WHERE tx = ?", transactionId);
    return rows.map((row) => JSON.parse(row.job) as unknown);
  });
  if (!jobs.length) throw new Error(`the ledger holds no job for ${transactionId}`);
  const batch = createMessageBatch(
    queueName,
    jobs.map((body, i) => ({ id: `held-${transactionId}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings);
  const result = await getQueueResult(batch, ctx);
  if (result.retryMessages.length || result.retryBatch.retry) throw new Error(`the consumer asked to retry: ${JSON.stringify(result)}`);
  return result;
}

/**
 * Hands accepted triggers' start jobs to the Worker's Queue consumer now and returns once it is
 * done with them: their D1 records and inline subscribers are written when this returns, with no
 * wait for the Queue. The consumer is idempotent, so whether or not the Queue has delivered the
 * same job already changes nothing the test reads. `bindings` are the consumer's (log shards
 * watched by test/log.ts's `interceptedLogs`, say).
 */
export async function startTriggers(environmentId: string, transactionIds: string[], bindings: typeof env = env) {
  const batch = createMessageBatch(
    "clarion-delivery-0",
    transactionIds.map((transactionId, i) => ({
      id: `start-${transactionId}-${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: { ...triggerJob(environmentId, transactionId), ledger: ledgerNameFor(env, environmentId, transactionId) },
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings);
  const result = await getQueueResult(batch, ctx);
  if (result.retryMessages.length || result.retryBatch.retry) throw new Error(`the consumer asked to retry: ${JSON.stringify(result)}`);
  return result;
}
