import { createExecutionContext, createMessageBatch, env, evictDurableObject, getQueueResult, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { triggerJob } from "../../src/jobs/job";
import { PACK_MAX_BYTES, packJobs } from "../../src/jobs/pack";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { loadWorkflowGates, prepareTrigger } from "../../src/features/triggers/accept";
import worker from "../../src/index";
import { createSandboxEnvironment, unique } from "../factories";
import { acceptThenCrash, ledgerOf } from "../ledger";
import { loggedCaptureRows, loggedMessages } from "../log";
import { api } from "../request";
import { createWorkflow, type MessageView, settledMessages, eventually } from "./helpers";
import { dataOf } from "../../src/features/data";

const person = () => ({ subscriberId: unique("pk"), email: "pk@example.com" });

const captures = async (key: string, messageId: string) =>
  (await api<{ data: unknown[] }>(key, "GET", `/v1/sandbox/messages?messageId=${messageId}`)).body.data.length;

describe("packing jobs into Queue messages", () => {
  it("packs jobs in order into messages of at most 128 KB, and leaves a lone job unwrapped", () => {
    const jobs = Array.from({ length: 3_000 }, (_, i) => ({
      ...triggerJob("env_0123456789", `tx-${i}-${"x".repeat(60)}`),
      ledger: "v1/32/7",
    }));
    const packs = packJobs(jobs);
    expect(packs.length).toBeGreaterThan(1);
    expect(packs.length).toBeLessThan(10);
    for (const pack of packs) expect(new TextEncoder().encode(JSON.stringify(pack)).length).toBeLessThanOrEqual(PACK_MAX_BYTES + 100);
    expect(packs.flatMap((p) => ("jobs" in p ? p.jobs : [p]))).toEqual(jobs);
    expect(packJobs([jobs[0]!])).toEqual([jobs[0]]);
    expect(packJobs([jobs[0]!], 3)).toEqual([{ v: 1, type: "pack", jobs: [jobs[0]], attempts: 3 }]);
  });

  it("sends every trigger a shard accepted in a tick in one message, and each is delivered once", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "packed", steps: [{ id: "mail", type: "email", template: { subject: "packed", text: "Hi" } }] });
    const gates = await loadWorkflowGates(dataOf(env, id), ["packed"]);
    const prepared = await Promise.all(
      Array.from({ length: 150 }, () =>
        prepareTrigger(id, { workflow: "packed", to: person() }, gates.get("packed"), new Set(), Date.now()),
      ),
    );
    // One shard takes them all, and dies before its in-memory flush: the alarm's tick sends them.
    const name = `v1/test/${unique("shard")}`;
    const ledger = env.LEDGERS.get(env.LEDGERS.idFromName(name));
    await runInDurableObject(ledger, async (instance: TriggerLedger, state) => {
      await instance.accept(
        name,
        prepared.map((p) => ({ record: p.record, fingerprint: p.fingerprint })),
      );
      await state.storage.deleteAlarm();
      await state.storage.sync();
      state.abort("simulated crash");
    }).catch(() => undefined);
    await evictDurableObject(ledger).catch(() => undefined);

    // A fresh stub: the one that saw the crash stays broken.
    const restarted = env.LEDGERS.get(env.LEDGERS.idFromName(name));
    const tick = await runInDurableObject(restarted, (instance: TriggerLedger) => instance.tick(Date.now()));
    expect(tick.flushed).toBe(150);
    expect(tick.messages).toBe(1);
    const sends = async () => {
      const sent = new Set((await loggedMessages(id, { status: "sent" })).map((m) => m.id));
      const captures = await loggedCaptureRows(id);
      return { messages: sent.size, captures: captures.filter((c) => sent.has(c.messageId)).length };
    };
    expect(await eventually(async () => ((await sends())?.messages === 150 ? sends() : null), 30_000)).toEqual({
      messages: 150,
      captures: 150,
    });
  });

  it("retries only the trigger that failed, and the others of its pack are not delivered again", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "isolated", steps: [{ id: "mail", type: "email", template: { subject: "one", text: "Hi" } }] });
    const good = [
      await acceptThenCrash(id, "isolated", person(), { loseJob: true }),
      await acceptThenCrash(id, "isolated", person(), { loseJob: true }),
    ];
    // A record D1 refuses (its workflow key is required): this trigger's writes fail, not the others'.
    const bad = await acceptThenCrash(id, "isolated", person(), {
      loseJob: true,
      record: (record) => ({ ...record, workflowKey: null as unknown as string }),
    });
    const jobs = [good[0]!, bad, good[1]!].map((t) => ({ ...triggerJob(id, t.transactionId), ledger: t.ledger }));
    const batch = createMessageBatch("clarion-delivery-0", [
      { id: "pack-1", timestamp: new Date(), attempts: 1, body: { v: 1, type: "pack", jobs } },
    ]);
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, createExecutionContext());
    // The pack's message is done with: the failed trigger went back to the Queue on its own.
    expect(result.explicitAcks).toEqual(["pack-1"]);
    expect(result.retryMessages).toEqual([]);
    // Delivered by this very invocation, not by a retry.
    const delivered = await Promise.all(
      good.map(
        async (t) => (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${t.transactionId}`)).body.data[0]!,
      ),
    );
    expect(delivered.map((m) => m?.status)).toEqual(["sent", "sent"]);

    // Repaired, the failed trigger is delivered by its retry; the good ones keep their single send.
    await runInDurableObject(ledgerOf(id, bad.transactionId), async (_ledger: TriggerLedger, state) => {
      const [row] = state.storage.sql.exec<{ record: string }>("SELECT record FROM triggers WHERE tx = ?", bad.transactionId).toArray();
      const record = { ...(JSON.parse(row!.record) as Record<string, unknown>), workflowKey: "isolated" };
      state.storage.sql.exec("UPDATE triggers SET record = ? WHERE tx = ?", JSON.stringify(record), bad.transactionId);
    });
    const [retried] = await settledMessages(key, bad.transactionId, 1, 30_000);
    expect(retried!.status).toBe("sent");
    for (const m of delivered) expect(await captures(key, m.id)).toBe(1);
    await eventually(async () => (await captures(key, retried!.id)) === 1);
  });

  it("takes on at most 5,000 recipients an invocation and sends the rest of a pack back untried", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "budget", steps: [{ id: "mail", type: "email", template: { subject: "later", text: "Hi" } }] });
    const { transactionId, ledger } = await acceptThenCrash(id, "budget", person(), { loseJob: true });
    // 100 chunks of 50 recipients of a trigger no ledger holds fill the budget; the real trigger comes last.
    const filler = Array.from({ length: 100 }, (_, chunk) => ({
      v: 1,
      type: "recipients",
      environmentId: id,
      transactionId: unique("gone"),
      ledger: `v1/test/${unique("none")}`,
      chunk,
      subscriberIds: Array.from({ length: 50 }, (_, n) => `s-${n}`),
    }));
    const jobs = [...filler, { ...triggerJob(id, transactionId), ledger }];
    const batch = createMessageBatch("clarion-delivery-0", [
      { id: "big-pack", timestamp: new Date(), attempts: 1, body: { v: 1, type: "pack", jobs } },
    ]);
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, createExecutionContext())).explicitAcks).toEqual(["big-pack"]);
    // Not run by this invocation...
    expect((await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}`)).body.data).toEqual([]);
    // ...but sent back, and delivered by the next.
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.status).toBe("sent");
    expect(await captures(key, message!.id)).toBe(1);
  });
});
