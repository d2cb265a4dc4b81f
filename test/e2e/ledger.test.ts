import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { FanOutCoordinator } from "../../src/durable-objects/fan-out-coordinator";
import { ledgerNameIn } from "../../src/durable-objects/client/naming";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { createSandboxEnvironment, unique } from "../factories";
import { acceptThenCrash, coordinatorOf, ledgerOf, readTrigger, tickLedger } from "../ledger";
import { timeOfId } from "../../src/lib/ids";
import { api } from "../request";
import { byStep, createWorkflow, settledMessages, trigger, type MessageView, eventually } from "./helpers";

const STALL_MS = 120_000;
const RETENTION_MS = 24 * 3_600_000;

const person = () => ({ subscriberId: unique("p"), email: "p@example.com", phone: "+41791234567" });

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}&limit=200`)).body.data;

const captures = async (key: string, messageId: string) =>
  (await api<{ data: unknown[] }>(key, "GET", `/v1/sandbox/messages?messageId=${messageId}`)).body.data.length;

describe("trigger ledger shards", () => {
  it("names shards by layout version and count, and spreads triggers over all of them", () => {
    const shards = new Set(Array.from({ length: 2_000 }, (_, i) => ledgerNameIn(32, "env_a", `tx-${i}`)));
    expect(shards.size).toBe(32);
    expect([...shards].every((name) => /^v1\/32\/\d+$/.test(name))).toBe(true);
    expect(ledgerNameIn(32, "env_a", "tx-1")).toBe(ledgerNameIn(32, "env_a", "tx-1"));
    expect(ledgerNameIn(64, "env_a", "tx-1")).toMatch(/^v1\/64\//);
  });

  it("delivers a trigger whose ledger died before flushing its outbox (durable before 202)", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "outbox", steps: [{ id: "mail", type: "email", template: { subject: "kept", text: "Hello" } }] });
    const { transactionId } = await acceptThenCrash(id, "outbox", person());
    expect(await messagesOf(key, transactionId)).toEqual([]);
    // The alarm that restarts the object after the crash: it finds the job still in the outbox.
    expect((await tickLedger(id, transactionId, Date.now())).flushed).toBe(1);
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.status).toBe("sent");
    expect(await captures(key, message!.id)).toBe(1);
  });

  it("resumes a trigger whose Queue job was lost once it has made no progress for the stall window", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "lost-job", steps: [{ id: "mail", type: "email", template: { subject: "found", text: "Hello" } }] });
    const { transactionId } = await acceptThenCrash(id, "lost-job", person(), { loseJob: true });
    expect((await tickLedger(id, transactionId, Date.now())).flushed).toBe(0);
    expect((await tickLedger(id, transactionId, Date.now() + STALL_MS + 1_000)).resumed).toBeGreaterThanOrEqual(1);
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.status).toBe("sent");
    // The run marks its recipients done (and the trigger completed) just after it records the send.
    const completed = async () => ((await readTrigger(id, transactionId))?.state === "completed" ? "completed" : null);
    expect(await eventually(completed)).toBe("completed");
  });

  it("resumes a lost run after its delay from where the delay left it, not from the first step", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "resume-delay",
      steps: [
        { id: "mail", type: "email", template: { subject: "first", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "second" } },
      ],
    });
    const transactionId = await trigger(key, { workflow: "resume-delay", to: person() });
    const fireAt = await eventually(
      async () => (await runInDurableObject(ledgerOf(id, transactionId), (l: TriggerLedger) => l.waiting(id, transactionId)))[0],
    );
    // The delay fires, but its job is lost on the way to the Queue.
    await runInDurableObject(ledgerOf(id, transactionId), async (ledger: TriggerLedger, state) => {
      await state.storage.deleteAlarm();
      await ledger.tick(fireAt);
      state.storage.sql.exec("DELETE FROM outbox");
    });
    expect((await tickLedger(id, transactionId, fireAt + STALL_MS + 1_000)).resumed).toBeGreaterThanOrEqual(1);
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "text").status).toBe("sent");
    expect(await captures(key, byStep(messages, "mail").id)).toBe(1);
    expect(await runInDurableObject(ledgerOf(id, transactionId), (l: TriggerLedger) => l.waiting(id, transactionId))).toEqual([]);
  });

  it("forgets a finished trigger after the idempotency window, and not before", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "forget", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hello" } }] });
    const transactionId = await trigger(key, { workflow: "forget", to: person() });
    await eventually(async () => (await readTrigger(id, transactionId))?.state === "completed");
    await tickLedger(id, transactionId, Date.now() + RETENTION_MS - 60_000);
    expect(await readTrigger(id, transactionId)).not.toBeNull();
    expect((await tickLedger(id, transactionId, Date.now() + RETENTION_MS + 60_000)).purged).toBeGreaterThanOrEqual(1);
    expect(await readTrigger(id, transactionId)).toBeNull();
  });
});

describe("fan-out coordinator", () => {
  it("coordinates a trigger of more than one chunk in its own object and completes it in the ledger", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "wide", steps: [{ id: "mail", type: "email", template: { subject: "wide", text: "Hello" } }] });
    const to = Array.from({ length: 60 }, person);
    const transactionId = await trigger(key, { workflow: "wide", to });
    const messages = await settledMessages(key, transactionId, 60, 30_000);
    expect(messages.every((m) => m.status === "sent")).toBe(true);
    const snapshot = await eventually(async () => {
      const s = await readTrigger(id, transactionId);
      return s?.state === "completed" ? s : null;
    });
    expect(snapshot.coordinated).toBe(true);
    // Each send's id carries its trigger's time plus its chunk, as the coordinator keeps the chunks:
    // the ids of a topic follow the order its chunks run in (message-writes.ts `sendMessageId`).
    const chunks = await runInDurableObject(coordinatorOf(id, transactionId), (_c: FanOutCoordinator, state) =>
      state.storage.sql.exec<{ chunk: number; ids: string }>("SELECT chunk, ids FROM chunks").toArray(),
    );
    expect(chunks.length).toBeGreaterThan(1);
    const chunkOf = new Map(chunks.flatMap((c) => (JSON.parse(c.ids) as string[]).map((s) => [s, c.chunk] as const)));
    expect(messages.map((m) => timeOfId(m.id)! - snapshot.acceptedAt)).toEqual(messages.map((m) => chunkOf.get(m.subscriberId)));
    const byChunk = [...messages].sort((a, b) => chunkOf.get(a.subscriberId)! - chunkOf.get(b.subscriberId)!);
    expect(byChunk.map((m) => chunkOf.get(m.subscriberId))).toEqual(
      [...messages].sort((a, b) => (a.id < b.id ? -1 : 1)).map((m) => chunkOf.get(m.subscriberId)),
    );
  });

  it("cancels a coordinated trigger while its recipients wait: the rest is recorded cancelled", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "wide-delay",
      steps: [
        { id: "mail", type: "email", template: { subject: "now", text: "Hello" } },
        { id: "wait", type: "delay", for: "PT1H" },
        { id: "text", type: "sms", template: { body: "later" } },
      ],
    });
    const to = Array.from({ length: 60 }, person);
    const transactionId = await trigger(key, { workflow: "wide-delay", to });
    const coordinator = coordinatorOf(id, transactionId);
    await eventually(async () => (await runInDurableObject(coordinator, (c: FanOutCoordinator) => c.waiting())).length === 2, 30_000);
    const cancel = await api<{ status: string; cancelledMessages: number; alreadySent: number }>(key, "DELETE", "/v1/trigger", {
      transactionId,
    });
    expect(cancel.body).toMatchObject({ status: "cancelled", cancelledMessages: 60, alreadySent: 60 });
    const messages = await settledMessages(key, transactionId, 120, 30_000);
    expect(messages.filter((m) => m.stepId === "mail").every((m) => m.status === "sent")).toBe(true);
    expect(messages.filter((m) => m.stepId === "text").every((m) => m.status === "cancelled")).toBe(true);
  });
});
