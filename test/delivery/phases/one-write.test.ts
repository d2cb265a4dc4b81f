// A new message of a granted send (not in-app) is written to the log once, after its send, with
// its result, content and whole timeline. The ledger's claim and report keep sends once-only
// whenever a consumer dies: each case ends with one row, final, with its content.
import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { CLAIM_DEADLINE_MS, CLAIM_RENEW_MS, type DeliveryOp } from "../../../src/durable-objects/ledger/claims";
import type { TriggerLedger } from "../../../src/durable-objects/ledger/trigger-ledger";
import type { LogWrite } from "../../../src/durable-objects/log/rows";
import { sendMessageId } from "../../../src/delivery/writes/message-writes";
import { sandboxEmail } from "../../../src/providers/sandbox/sandbox";
import { readTrigger, acceptThenCrash, ledgerOf } from "../../ledger";
import { interceptedLogs, loggedMessages, loggedTimelines } from "../../log";
import { api } from "../../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../../factories";
import { withEveryDeliveryQueue } from "../../delivery-queues";

const SECRET = "tok_live_one_write_42";

interface Faults {
  /** The log shards refuse a write of message rows that this answers true for (nothing of it is stored). */
  refuseLog?: (w: LogWrite) => boolean;
  /** The ledger runs these operations, then the consumer dies before it hears the answer. */
  dieAfter?: DeliveryOp["kind"];
  /** The consumer dies before the ledger hears these operations. */
  dieBefore?: DeliveryOp["kind"];
  /** Told of every list of operations the ledger answered. */
  answered?: (ops: DeliveryOp[]) => void;
}

/** The consumer's bindings, counting the log writes that carry message rows and failing as `faults` says. */
function bindings(faults: Faults = {}) {
  const messageWrites: LogWrite[] = [];
  const ledgers = env.LEDGERS;
  // LogStore sends a phase's rows as JSON text (LogShard.writeJson).
  const LOGS = interceptedLogs((key, stub) =>
    key !== "writeJson"
      ? undefined
      : async (name: string, rows: string, outbox?: LogWrite["outbox"]) => {
          const w: LogWrite = { ...(JSON.parse(rows) as LogWrite), outbox };
          if (w.inserts?.length || w.updates?.length) {
            if (faults.refuseLog?.(w)) throw new Error("log shard down");
            messageWrites.push(w);
          }
          return stub.writeJson(name, rows, outbox);
        },
  );
  const LEDGERS = {
    idFromName: (name: string) => ledgers.idFromName(name),
    get: (id: DurableObjectId) =>
      new Proxy(ledgers.get(id), {
        get(stub, key) {
          if (key !== "run") return Reflect.get(stub, key);
          return async (ops: DeliveryOp[]) => {
            if (faults.dieBefore && ops.some((op) => op.kind === faults.dieBefore)) throw new Error("consumer died");
            const answer = await stub.run(ops);
            if (faults.dieAfter && ops.some((op) => op.kind === faults.dieAfter)) throw new Error("consumer died");
            faults.answered?.(ops);
            return answer;
          };
        },
      }),
  };
  return { env: { ...env, LOGS, LEDGERS: LEDGERS as unknown as typeof env.LEDGERS }, messageWrites };
}

async function consume(jobs: unknown[], consumerEnv: typeof env, tag: string) {
  const batch = createMessageBatch(
    "clarion-delivery-0",
    jobs.map((body, i) => ({ id: `${tag}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, consumerEnv);
  return getQueueResult(batch, ctx);
}

/** A trigger of one email to one subscriber, held in its ledger: the test hands its jobs to the consumer. */
async function heldTrigger() {
  const { id: environmentId, key } = await createSandboxEnvironment();
  expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: SECRET, secret: true })).status).toBe(201);
  const workflow = await createWorkflow(key, {
    key: unique("once").toLowerCase(),
    steps: [{ id: "mail", type: "email", template: { subject: "Code {{ vars.TOKEN }}", text: "Use {{ vars.TOKEN }} today" } }],
  });
  const subscriberId = unique("s");
  const { transactionId } = await acceptThenCrash(environmentId, workflow.key, { subscriberId, email: "once@example.com" });
  const jobs = await runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    const rows = state.storage.sql.exec<{ job: string }>("SELECT job FROM outbox WHERE tx = ?", transactionId).toArray();
    state.storage.sql.exec("DELETE FROM outbox WHERE tx = ?", transactionId);
    return rows.map((row) => JSON.parse(row.job) as unknown);
  });
  const acceptedAt = (await readTrigger(environmentId, transactionId))!.acceptedAt;
  const identity = {
    environmentId,
    transactionId,
    subscriberId,
    workflowKey: workflow.key,
    stepId: "mail",
    channel: "email" as const,
    workflowVersion: null,
  };
  const messageId = sendMessageId(identity, acceptedAt);
  return { environmentId, transactionId, subscriberId, jobs, messageId, identity, acceptedAt };
}

/** Moves the trigger's acceptance `ms` into the past, as its ledger keeps it: its first run then starts that late. */
const acceptedEarlier = (environmentId: string, transactionId: string, ms: number) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    state.storage.sql.exec(
      "UPDATE triggers SET record = json_set(record, '$.acceptedAt', json_extract(record, '$.acceptedAt') - ?) WHERE tx = ?",
      ms,
      transactionId,
    );
  });

const MINUTE = 60_000;

/** What a dead consumer's claim looks like once its deadline passed: the next consumer may send. */
const expireClaims = (environmentId: string, transactionId: string) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), (_ledger: TriggerLedger, state) => {
    state.storage.sql.exec("UPDATE claims SET at = at - ? WHERE tx = ?", CLAIM_DEADLINE_MS + 1_000, transactionId);
  });

/** The trigger's messages with their timelines. */
async function rows(environmentId: string, transactionId: string) {
  const messages = await loggedMessages(environmentId, { transactionId });
  return loggedTimelines(
    environmentId,
    messages.map((m) => m.id),
  );
}

const STORED = { subject: "Code [secret]", content: { subject: "Code [secret]", text: "Use [secret] today" } };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("a new message's one log write", () => {
  it("is written once, after the send, with its result, redacted content and whole timeline", async () => {
    const t = await heldTrigger();
    const send = vi.spyOn(sandboxEmail, "send");
    const run = bindings();
    const result = await consume(t.jobs, run.env, `once-${t.transactionId}`);
    expect(result.retryMessages).toEqual([]);

    // One log write carries the message's row (two before: `sending`, then the result).
    expect(run.messageWrites).toHaveLength(1);
    expect(run.messageWrites[0]!.inserts?.map((m) => [m.id, m.status])).toEqual([[t.messageId, "sent"]]);
    expect(send).toHaveBeenCalledOnce();
    expect(send.mock.calls[0]![0].messageId).toBe(t.messageId);

    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message).toMatchObject({
      id: t.messageId,
      status: "sent",
      ...STORED,
      preview: expect.stringContaining("[secret]"),
      providerMessageId: `sandbox_${t.messageId}`,
      provider: "sandbox-email",
      to: "once@example.com",
      attempts: 1,
    });
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    expect(row!.events[1]!.detail).toEqual({ attempt: 1 });
    expect(row!.message.createdAt).toBe(row!.events[0]!.at);
  });

  it("records a retryable answer as the row of a queued message, which the retry then sends", async () => {
    const t = await heldTrigger();
    const send = vi
      .spyOn(sandboxEmail, "send")
      .mockResolvedValueOnce({ ok: false, kind: "retryable", code: "rate_limited", message: "429 Too Many Requests" });
    const run = bindings();
    await consume(t.jobs, run.env, `retry-${t.transactionId}`);
    expect(run.messageWrites).toHaveLength(1);
    const [queued] = await rows(t.environmentId, t.transactionId);
    expect(queued!.message).toMatchObject({ id: t.messageId, status: "queued", attempts: 1, errorCode: "rate_limited", ...STORED });
    expect(queued!.events.map((e) => e.status)).toEqual(["queued", "sending", "queued"]);
    expect(queued!.events[2]!.detail).toMatchObject({ error: "rate_limited", retryInSeconds: expect.any(Number) });

    // The retry's job: the chunk again, for the halted recipient. Its row is there, so it is updated.
    const retried = {
      v: 1,
      type: "recipients",
      environmentId: t.environmentId,
      transactionId: t.transactionId,
      chunk: 0,
      subscriberIds: [t.subscriberId],
    };
    await consume([retried], bindings().env, `retry-again-${t.transactionId}`);
    const [sent, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(sent!.message).toMatchObject({ id: t.messageId, status: "sent", attempts: 2, errorCode: null, ...STORED });
    expect(sent!.events.map((e) => e.status)).toEqual(["queued", "sending", "queued", "sending", "sent"]);
    expect(send).toHaveBeenCalledTimes(2);
  });
});

describe("a consumer that dies around a send", () => {
  it("(a) after the claim, before the send: nothing is written or sent; once the claim expires the next one sends once", async () => {
    const t = await heldTrigger();
    const send = vi.spyOn(sandboxEmail, "send");
    expect((await consume(t.jobs, bindings({ dieAfter: "claim" }).env, `a1-${t.transactionId}`)).retryMessages).toHaveLength(1);
    expect(send).not.toHaveBeenCalled();
    expect(await rows(t.environmentId, t.transactionId)).toEqual([]);

    // Within the claim's deadline, another consumer waits rather than sending.
    await consume(t.jobs, bindings().env, `a2-${t.transactionId}`);
    expect(send).not.toHaveBeenCalled();
    await expireClaims(t.environmentId, t.transactionId);
    await consume(t.jobs, bindings().env, `a3-${t.transactionId}`);

    expect(send).toHaveBeenCalledOnce();
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message).toMatchObject({ id: t.messageId, status: "sent", attempts: 1, ...STORED });
    expect(row!.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
  });

  it("(b) after the send, before the report: the next one sends under the same message id (a provider's idempotency key), one row", async () => {
    const t = await heldTrigger();
    const send = vi.spyOn(sandboxEmail, "send");
    expect((await consume(t.jobs, bindings({ dieBefore: "report" }).env, `b1-${t.transactionId}`)).retryMessages).toHaveLength(1);
    expect(send).toHaveBeenCalledOnce();
    expect(await rows(t.environmentId, t.transactionId)).toEqual([]);

    await expireClaims(t.environmentId, t.transactionId);
    await consume(t.jobs, bindings().env, `b2-${t.transactionId}`);
    // The ledger cannot know whether the first send went out: a deduplicating provider (Resend,
    // OneSignal) drops the second, which carries the same id.
    expect(send.mock.calls.map(([request]) => request.messageId)).toEqual([t.messageId, t.messageId]);
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message).toMatchObject({ id: t.messageId, status: "sent", attempts: 1, ...STORED });
    expect(row!.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
  });

  it("(c) after the report, before the log write: the next one records the ledger's report with the planned content, sending nothing", async () => {
    const t = await heldTrigger();
    const send = vi.spyOn(sandboxEmail, "send");
    const down = bindings({
      refuseLog: (w) => [...(w.inserts ?? []), ...(w.updates ?? []).map((u) => u.changes)].some((m) => m.status === "sent"),
    });
    expect((await consume(t.jobs, down.env, `c1-${t.transactionId}`)).retryMessages).toHaveLength(1);
    expect(send).toHaveBeenCalledOnce();
    expect(await rows(t.environmentId, t.transactionId)).toEqual([]);

    await consume(t.jobs, bindings().env, `c2-${t.transactionId}`);
    expect(send).toHaveBeenCalledOnce();
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    // The id the provider got (its idempotency key, the email's links) names the row.
    expect(row!.message).toMatchObject({
      id: t.messageId,
      status: "sent",
      providerMessageId: `sandbox_${t.messageId}`,
      attempts: 1,
      ...STORED,
      preview: expect.stringContaining("[secret]"),
    });
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    expect(row!.events[2]!.detail).toMatchObject({ recovered: true });
  });
});

describe("where a send's id may carry its trigger's time", () => {
  // The log's generations place a row by its id's time and lists sort by createdAt: the two may
  // differ by at most GENERATION_SKEW_MS (an hour), so a send-derived id (the trigger's time) is
  // used only within half of it.
  it("a first run starting more than half an hour after acceptance records `sending` first, under a new id", async () => {
    const t = await heldTrigger();
    await acceptedEarlier(t.environmentId, t.transactionId, 31 * MINUTE);
    const send = vi.spyOn(sandboxEmail, "send");
    const run = bindings();
    await consume(t.jobs, run.env, `late-${t.transactionId}`);
    expect(
      run.messageWrites.map((w) => [...(w.inserts ?? []).map((m) => m.status), ...(w.updates ?? []).map((u) => u.changes.status)]),
    ).toEqual([["sending"], ["sent"]]);
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message.id).not.toBe(sendMessageId(t.identity, t.acceptedAt - 31 * MINUTE));
    expect(send.mock.calls.map(([request]) => request.messageId)).toEqual([row!.message.id]);
    expect(row!.message).toMatchObject({ status: "sent", ...STORED });
  });

  it("a repair after the window records the message under the id its send used, as the ledger kept it", async () => {
    const t = await heldTrigger();
    await acceptedEarlier(t.environmentId, t.transactionId, 29 * MINUTE);
    const send = vi.spyOn(sandboxEmail, "send");
    const down = bindings({ refuseLog: (w) => (w.inserts ?? []).some((m) => m.status === "sent") });
    await consume(t.jobs, down.env, `w1-${t.transactionId}`);
    const sentAs = send.mock.calls[0]![0].messageId;
    expect(sentAs).toBe(sendMessageId(t.identity, t.acceptedAt - 29 * MINUTE));

    // The retry comes after the window: the send's id could no longer be made again from the identity.
    await acceptedEarlier(t.environmentId, t.transactionId, 2 * MINUTE);
    await consume(t.jobs, bindings().env, `w2-${t.transactionId}`);
    expect(send).toHaveBeenCalledOnce();
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message).toMatchObject({ id: sentAs, status: "sent", providerMessageId: `sandbox_${sentAs}`, ...STORED });
  });
});

describe("a live consumer slower than the claim's deadline", () => {
  it("keeps its claims by renewing them while it sends: another consumer of the same job waits rather than sending again", async () => {
    const t = await heldTrigger();
    // Only the renewal's interval is driven by the test; every other timer (the micro-batches') runs as it does.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    let renewed: () => void = () => {};
    const renewal = new Promise<void>((resolve) => {
      renewed = resolve;
    });
    const slow = bindings({ answered: (ops) => ops.some((op) => op.kind === "renew") && renewed() });
    const original = sandboxEmail.send.bind(sandboxEmail);
    // The other consumer's re-enqueued jobs, kept here rather than run by the test's Queue.
    const requeued: { body: unknown; delaySeconds?: number }[] = [];
    const keep = { send: async (body: unknown, options?: QueueSendOptions) => void requeued.push({ body, ...options }) };
    const other = withEveryDeliveryQueue(bindings().env, keep);
    const send = vi.spyOn(sandboxEmail, "send").mockImplementationOnce(async (...args) => {
      // The provider takes longer than the deadline: the claim is as old as that when the renewal comes due.
      await expireClaims(t.environmentId, t.transactionId);
      vi.advanceTimersByTime(CLAIM_RENEW_MS);
      // Bounded only so that a consumer that never renews fails here, by name, rather than at the test's timeout.
      await Promise.race([renewal, scheduler.wait(5_000).then(() => Promise.reject(new Error("no renewal came")))]);
      // The watchdog (or a redelivery) hands the same job to another consumer meanwhile.
      await consume(t.jobs, other as typeof env, `late-2-${t.transactionId}`);
      return original(...args);
    });
    const first = await consume(t.jobs, slow.env, `late-1-${t.transactionId}`);

    expect(send).toHaveBeenCalledOnce();
    // The other consumer found the send held and looks again later (after the deadline, in case its holder died).
    expect(requeued).toEqual([{ body: expect.objectContaining({ subscriberIds: [t.subscriberId] }), delaySeconds: 30 }]);
    expect(first.retryMessages).toEqual([]);
    const [row, ...more] = await rows(t.environmentId, t.transactionId);
    expect(more).toEqual([]);
    expect(row!.message).toMatchObject({ id: t.messageId, status: "sent", attempts: 1 });
    // Its report ended the lease: no renewal is left running.
    expect(vi.getTimerCount()).toBe(0);
  });
});
