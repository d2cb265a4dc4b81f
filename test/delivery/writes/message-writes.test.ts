import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/db/batch";
import { createDb, type Db } from "../../../src/db/client";
import { sandboxMessages, suppressions } from "../../../src/db/schema";
import { DeliveryContext } from "../../../src/delivery/context";
import { MessageWrites, type SendIdentity, sendMessageId } from "../../../src/delivery/writes/message-writes";
import { DEFAULT_LOG_SHARDS, SEND_ID_AHEAD_MS, subscriberPartition } from "../../../src/durable-objects/client/log-naming";
import { partitionOfId } from "../../../src/lib/ids";
import { LogStore } from "../../../src/durable-objects/client/log-store";
import { createEnvironment, unique } from "../../factories";
import { loggedMessages, loggedTimelines } from "../../log";

/** Writes a phase as delivery does: its log rows (one call per shard), then the D1 statements that follow. */
async function written(db: Db, writes: MessageWrites) {
  const store = new LogStore(env);
  const batch = writes.logBatch(store);
  const { described } = await store.write(batch);
  const statements = writes.all(batch.legacy, described);
  await runBatch(db, statements);
  return { shards: batch.shards, statements: statements.length };
}

describe("MessageWrites", () => {
  it("writes 300 messages' results in a few statements, each row with its own values", async () => {
    const { id: environmentId } = await createEnvironment();
    const db = createDb(env.DB);
    const transactionId = unique("tx");
    const identity = (n: number) => ({
      environmentId,
      transactionId,
      subscriberId: `s-${n}`,
      workflowKey: "w",
      stepId: "push",
      channel: "push",
      workflowVersion: 1,
    });
    const created = new MessageWrites(db, new Date());
    const ids = Array.from({ length: 300 }, (_, n) => created.insertSending(identity(n), { content: { n } }));
    await written(db, created);

    const results = new MessageWrites(db, new Date());
    ids.forEach((id, n) => {
      const fields = { provider: "fcm", integrationId: "int_1", to: `token-${n}`, attempts: 1 };
      if (n % 3 === 0)
        results.update(
          { id, environmentId, transactionId, subscriberId: `s-${n}`, stepId: "push" },
          "failed",
          { ...fields, errorCode: "http_400", errorMessage: `bad ${n}` },
          { status: "failed" },
        );
      else
        results.update(
          { id, environmentId, transactionId, subscriberId: `s-${n}`, stepId: "push" },
          "sent",
          { ...fields, providerMessageId: `pm-${n}`, errorCode: null },
          { status: "sent" },
        );
    });
    const cost = await written(db, results);
    // One UPDATE per message would be 300 statements (plus the events' inserts): the results and
    // timelines are one call per log shard, and D1 takes only the outbound events' one statement.
    expect(cost.shards).toBeLessThanOrEqual(DEFAULT_LOG_SHARDS);
    expect(cost.statements).toBe(1);

    const logged = await loggedMessages(environmentId, { transactionId });
    expect(logged).toHaveLength(300);
    const bySubscriber = new Map(
      logged.map((m) => [
        m.subscriberId,
        { s: m.subscriberId, status: m.status, pm: m.providerMessageId, to: m.to, err: m.errorMessage, attempts: m.attempts },
      ]),
    );
    for (const n of ids.keys()) {
      expect(bySubscriber.get(`s-${n}`)).toEqual(
        n % 3 === 0
          ? { s: `s-${n}`, status: "failed", pm: null, to: `token-${n}`, err: `bad ${n}`, attempts: 1 }
          : { s: `s-${n}`, status: "sent", pm: `pm-${n}`, to: `token-${n}`, err: null, attempts: 1 },
      );
    }
    const timelines = await loggedTimelines(environmentId, ids);
    expect(timelines.flatMap((t) => t.events)).toHaveLength(300);
  });

  it("writes a final message, its timeline and a capture with every column as given", async () => {
    const { id: environmentId } = await createEnvironment();
    const db = createDb(env.DB);
    const now = new Date(1_700_000_000_123);
    const identity = {
      environmentId,
      transactionId: unique("tx"),
      subscriberId: "s",
      workflowKey: "w",
      stepId: "email",
      channel: "email",
      workflowVersion: 1,
      tenantId: "acme",
      context: { region: "eu" },
    };
    const writes = new MessageWrites(db, now);
    const content = { subject: 'Über "it"', list: [1, null, { deep: true }] };
    const id = writes.insertFinal(
      identity,
      "failed",
      {
        provider: "sendgrid",
        integrationId: "int_1",
        to: "s@example.com",
        subject: "Hi",
        content,
        errorCode: "http_400",
        errorMessage: null,
      },
      [{ status: "failed", detail: { error: "http_400" } }],
    );
    writes.capture(environmentId, id, { channel: "email", provider: "sandbox", to: "s@example.com", content });
    await written(db, writes);

    const [logged] = await loggedTimelines(environmentId, [id]);
    expect(logged?.message).toEqual({
      id,
      ...identity,
      provider: "sendgrid",
      integrationId: "int_1",
      status: "failed",
      providerMessageId: null,
      to: "s@example.com",
      subject: "Hi",
      preview: null,
      content,
      errorCode: "http_400",
      errorMessage: null,
      attempts: 0,
      layoutVersion: null,
      createdAt: now.getTime(),
      updatedAt: now.getTime(),
    });
    expect(logged?.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        environmentId,
        messageId: id,
        status: "failed",
        at: now.getTime(),
        detail: { error: "http_400" },
      },
    ]);
    // The capture is the log's, with its message (D1 keeps only those of messages it recorded before the log).
    expect(await db.select().from(sandboxMessages).where(eq(sandboxMessages.messageId, id))).toEqual([]);
    const captures = await new LogStore(env).captures(environmentId, 10, id);
    expect(captures).toEqual([
      {
        id: expect.stringMatching(/^cap_/),
        environmentId,
        messageId: id,
        channel: "email",
        provider: "sandbox",
        to: "s@example.com",
        content,
        createdAt: now.getTime(),
      },
    ]);
  });

  it("writes none of a phase's rows when one of its statements fails: the phase is one D1 batch", async () => {
    const { id: environmentId } = await createEnvironment();
    const ctx = new DeliveryContext(env);
    const writes = new MessageWrites(ctx.db, new Date());
    const identity = (stepId: string) => ({
      environmentId,
      transactionId: unique("tx"),
      subscriberId: "s",
      workflowKey: "w",
      stepId,
      channel: "email",
      workflowVersion: 1,
    });
    const sending = writes.insertSending(identity("mail"), { content: { subject: "Hi" } });
    writes.insertFinal(identity("skip"), "skipped", {}, [{ status: "skipped", detail: { reason: "test" } }]);
    writes.suppress({ environmentId, channel: "email", address: "s@example.com", reason: "hard_bounce", messageId: sending });
    // A capture D1 refuses (no address, which is NOT NULL): of a message D1 recorded before the log
    // (an id without a partition), so D1's; it runs after the suppression, in the same D1 batch.
    const legacy = `msg_${crypto.randomUUID()}`;
    expect(partitionOfId(legacy)).toBeNull();
    writes.capture(environmentId, legacy, { channel: "email", provider: "sandbox", to: null as unknown as string, content: {} });

    await expect(ctx.writeMessages(writes)).rejects.toThrow(/NOT NULL/);
    const left = await Promise.all([
      ctx.db.select({ address: suppressions.address }).from(suppressions).where(eq(suppressions.environmentId, environmentId)),
      ctx.db.select({ id: sandboxMessages.id }).from(sandboxMessages).where(eq(sandboxMessages.environmentId, environmentId)),
    ]);
    expect(left).toEqual([[], []]);
    // The log was written before the D1 batch and keeps the phase's messages and timeline; writing
    // the phase again (its retry) adds nothing: one row per send identity, one entry per event id.
    await expect(ctx.writeMessages(writes)).rejects.toThrow(/NOT NULL/);
    const logged = await loggedMessages(environmentId);
    expect(logged.map((m) => m.stepId).sort()).toEqual(["mail", "skip"]);
    const timelines = await loggedTimelines(
      environmentId,
      logged.map((m) => m.id),
    );
    expect(timelines.flatMap((t) => t.events.map((e) => e.status))).toEqual(["skipped"]);
  });
});

describe("sendMessageId", () => {
  const identity = (patch: Partial<SendIdentity> = {}): SendIdentity => ({
    environmentId: "env_1",
    transactionId: "tx-1",
    subscriberId: "s-1",
    workflowKey: "w",
    stepId: "mail",
    channel: "email",
    workflowVersion: 1,
    ...patch,
  });
  const at = Date.UTC(2026, 5, 1, 12);

  it("names a send the same at every attempt: a log id with the trigger's time and the subscriber's partition", () => {
    const id = sendMessageId(identity(), at);
    expect(sendMessageId(identity({ workflowVersion: 2, channel: "email" }), at)).toBe(id);
    expect(id).toMatch(/^msg_[0-9a-f]{12}8[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(partitionOfId(id)).toBe(subscriberPartition("env_1", "s-1"));
    expect(Number.parseInt(id.slice(4, 16), 16)).toBe(at);
  });

  it("differs for every other send identity", () => {
    const ids = new Set(
      [
        identity(),
        identity({ environmentId: "env_2" }),
        identity({ transactionId: "tx-2" }),
        identity({ subscriberId: "s-2" }),
        identity({ stepId: "text" }),
        ...Array.from({ length: 2_000 }, (_, n) => identity({ subscriberId: `member-${n}` })),
      ].map((i) => sendMessageId(i, at)),
    );
    expect(ids.size).toBe(2_005);
  });

  it("follows its chunk: the trigger's time plus the chunk, so a topic's ids sort chunk by chunk, and chunk 0's are as before", () => {
    const members = Array.from({ length: 40 }, (_, n) => `member-${n}`);
    const ofChunk = (chunk: number) => members.map((subscriberId) => sendMessageId(identity({ subscriberId }), at, chunk));
    expect(ofChunk(0)).toEqual(members.map((subscriberId) => sendMessageId(identity({ subscriberId }), at)));
    for (let chunk = 1; chunk < 30; chunk++) {
      expect(ofChunk(chunk)).toEqual(ofChunk(chunk));
      expect([...ofChunk(chunk - 1)].sort().at(-1)! < [...ofChunk(chunk)].sort()[0]!).toBe(true);
      expect(ofChunk(chunk).every((id) => Number.parseInt(id.slice(4, 16), 16) === at + chunk)).toBe(true);
    }
    // However many chunks, an id is made at most SEND_ID_AHEAD_MS past its trigger (reads look that far ahead).
    expect(Number.parseInt(sendMessageId(identity(), at, 10_000_000).slice(4, 16), 16)).toBe(at + SEND_ID_AHEAD_MS);
  });
});
