import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { legacyMessageRead, recipientRowsRead } from "../../src/db/queries/recipient-reads";
import { messages, subscriberChannels, suppressions, subscribers } from "../../src/db/schema";
import { DeliveryContext } from "../../src/delivery/context";
import type { RecipientsJob } from "../../src/jobs/job";
import { load } from "../../src/delivery/recipients/recipients-state";
import type { TriggerRecord } from "../../src/jobs/trigger-record";
import { newId, newLogId } from "../../src/lib/ids";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { createEnvironment, createWorkflow, unique } from "../factories";

const CHUNKS = 20;

async function seed() {
  const environment = await createEnvironment();
  const workflow = await createWorkflow(environment.key);
  const ids = Array.from({ length: CHUNKS }, (_, i) => unique(`rr${i}`));
  const db = createDb(env.DB);
  const now = new Date();
  await db.batch([
    db.insert(subscribers).values(
      ids.slice(0, 10).map((subscriberId) => ({
        id: newId("sub"),
        environmentId: environment.id,
        subscriberId,
        email: `${subscriberId}@example.com`,
        createdAt: now,
        updatedAt: now,
      })),
    ),
    db.insert(subscribers).values(
      ids.slice(10).map((subscriberId) => ({
        id: newId("sub"),
        environmentId: environment.id,
        subscriberId,
        email: `${subscriberId}@example.com`,
        createdAt: now,
        updatedAt: now,
      })),
    ),
    db.insert(suppressions).values({
      environmentId: environment.id,
      address: `${ids[3]}@example.com`,
      channel: "email",
      reason: "hard_bounce",
      provider: "test",
      createdAt: now,
    }),
  ]);
  const record = (transactionId: string, subscriberId: string): TriggerRecord => ({
    environmentId: environment.id,
    transactionId,
    workflowKey: workflow.key,
    workflowId: workflow.id,
    workflowVersion: workflow.version,
    recipients: [subscriberId],
    payload: {},
    overrides: null,
    actor: null,
    acceptedAt: now.getTime(),
  });
  const chunks = ids.map((subscriberId, i) => {
    const trigger = record(unique(`tx${i}`), subscriberId);
    const job: RecipientsJob = {
      v: 1,
      type: "recipients",
      environmentId: environment.id,
      transactionId: trigger.transactionId,
      chunk: 0,
      subscriberIds: [subscriberId],
    };
    return { trigger, job };
  });
  // Chunk 5's subscriber already has a message of chunk 6's trigger: it belongs to neither chunk's own pair.
  await db.insert(messages).values(
    [chunks[5]!, chunks[6]!].map((c, n) => ({
      id: newId("msg"),
      environmentId: environment.id,
      transactionId: chunks[6]!.trigger.transactionId,
      subscriberId: n === 0 ? chunks[5]!.job.subscriberIds[0]! : c.job.subscriberIds[0]!,
      workflowKey: workflow.key,
      stepId: workflow.steps[0]!.id,
      channel: "email",
      status: "sent" as const,
      createdAt: now,
      updatedAt: now,
    })),
  );
  return { environment, chunks };
}

describe("the reads of a consumer invocation's recipient chunks", () => {
  it("reads the workflow once and each table once for chunks started together, and gives each chunk only its rows", async () => {
    const { chunks } = await seed();
    const ctx = new DeliveryContext(env);
    const loaded = await Promise.all(chunks.map(({ job, trigger }) => load(ctx, job, trigger)));

    // The workflow version, the subscribers with their channels and suppressions, D1's older messages: in one D1 batch.
    expect(ctx.costs.d1Statements).toBe(3);
    expect(ctx.costs.d1Batches).toBe(1);

    loaded.forEach((l, i) => {
      const [subscriberId] = chunks[i]!.job.subscriberIds;
      expect(l.workflow?.steps).toHaveLength(1);
      expect([...l.recipients.keys()]).toEqual([subscriberId]);
      expect(l.recipients.get(subscriberId!)?.profile.email).toBe(`${subscriberId}@example.com`);
      expect(l.suppressed.has(`${chunks[3]!.job.subscriberIds[0]}@example.com`)).toBe(true);
      // What templates see as `subscriber`: the row but its ids and preferences, times as ISO text.
      const view = l.recipients.get(subscriberId!)!.context.subscriber;
      expect(view).toMatchObject({ subscriberId, email: `${subscriberId}@example.com`, firstName: null, data: null });
      expect(view.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(view.updatedAt).toBe(view.createdAt);
      for (const hidden of ["id", "environmentId", "preferences"]) expect(view).not.toHaveProperty(hidden);
    });
    expect(loaded[5]!.existing.size).toBe(0);
    expect([...loaded[6]!.existing.values()].map((m) => m.subscriberId)).toEqual(chunks[6]!.job.subscriberIds);
    expect(loaded.filter((l) => l.existing.size > 0)).toHaveLength(1);
  });

  it("reads a recipient list larger than D1's 100 bound parameters in one statement per table", async () => {
    const { environment, chunks } = await seed();
    const ctx = new DeliveryContext(env);
    const many = [...chunks.map((c) => c.job.subscriberIds[0]!), ...Array.from({ length: 180 }, (_, i) => unique(`none${i}`))];
    const { trigger } = chunks[0]!;
    const loaded = await load(ctx, { ...chunks[0]!.job, environmentId: environment.id, subscriberIds: many }, trigger);
    // The workflow, the subscribers with their channels and suppressed addresses, and D1's older messages.
    expect(ctx.costs.d1Statements).toBe(3);
    expect(loaded.recipients.size).toBe(200);
    expect([...loaded.recipients.values()].filter((r) => r.profile.email !== null)).toHaveLength(CHUNKS);
  });

  it("reads subscribers whose custom data together pass D1's 2 MB per value: one row each, not one value for all", async () => {
    const { environment, chunks } = await seed();
    const db = createDb(env.DB);
    const big = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, "x".repeat(100_000)]));
    const heavy = chunks.slice(0, 4).map((c) => c.job.subscriberIds[0]!);
    // Four subscribers of 800 KB each: 3.2 MB in one JSON value, which D1 refuses as too big.
    for (const subscriberId of heavy) await db.update(subscribers).set({ data: big }).where(eq(subscribers.subscriberId, subscriberId));
    // Local D1 does not enforce the 2 MB: what is checked is that no answered value holds them all.
    const answer = (await recipientRowsRead(db, environment.id, heavy).all()) as D1Result<Record<string, unknown>>;
    expect(answer.results).toHaveLength(heavy.length);
    for (const row of answer.results) for (const value of Object.values(row)) expect(String(value).length).toBeLessThan(1_000_000);
    const ctx = new DeliveryContext(env);
    const { trigger } = chunks[0]!;
    const loaded = await load(ctx, { ...chunks[0]!.job, environmentId: environment.id, subscriberIds: heavy }, trigger);
    expect(ctx.costs.d1Statements).toBe(3);
    expect([...loaded.recipients.keys()].sort()).toEqual([...heavy].sort());
    for (const id of heavy) expect((loaded.recipients.get(id)!.context.subscriber as { data?: unknown }).data).toEqual(big);
    expect(loaded.workflow?.steps).toHaveLength(1);
  });

  it("reads no D1 messages for a trigger accepted since the log moved", async () => {
    const { environment, chunks } = await seed();
    const { trigger, job } = chunks[0]!;
    const first = new DeliveryContext(env);
    await load(first, { ...job, environmentId: environment.id }, trigger);
    // The workflow, the subscribers with their channels and suppressed addresses, D1's older messages.
    expect(first.costs.d1Statements).toBe(3);
    const again = new DeliveryContext(env);
    const loaded = await load(again, { ...job, environmentId: environment.id }, { ...trigger, messagesInLog: true });
    // No messages read from D1, nor the workflow version this isolate read already.
    expect(again.costs.d1Statements).toBe(1);
    expect(loaded.workflow?.steps).toHaveLength(1);
    expect(loaded.recipients.get(job.subscriberIds[0]!)?.profile.email).toBe(`${job.subscriberIds[0]}@example.com`);
  });

  it("reads the messages of the (transaction, subscriber) pairs asked, not of every transaction to every subscriber", async () => {
    const { environment, chunks } = await seed();
    const db = createDb(env.DB);
    const [five, six] = [chunks[5]!, chunks[6]!];
    const pairs = [five, six].map((c) => [c.trigger.transactionId, c.job.subscriberIds[0]!] as const);
    const read = legacyMessageRead(db, environment.id, pairs);
    // Chunk 5's subscriber's message of chunk 6's trigger is no asked pair: only chunk 6's own is read.
    const rows = await read;
    expect(rows.map((m) => [m.transactionId, m.subscriberId])).toEqual([pairs[1]]);
  });
  it("finds what a chunk already recorded in the log for its own pairs, merged with D1's, without another D1 statement", async () => {
    const { environment, chunks } = await seed();
    const [seven, eight] = [chunks[7]!, chunks[8]!];
    const store = new LogStore(env);
    const batch = store.batch();
    const now = Date.now();
    // Chunk 7's subscriber has a log message of chunk 8's trigger (no pair of either), chunk 8's its own.
    for (const subscriberId of [seven.job.subscriberIds[0]!, eight.job.subscriberIds[0]!])
      batch.insert({
        id: newLogId("msg", subscriberPartition(environment.id, subscriberId)),
        environmentId: environment.id,
        transactionId: eight.trigger.transactionId,
        subscriberId,
        workflowKey: eight.trigger.workflowKey,
        stepId: "s",
        channel: "email",
        provider: null,
        integrationId: null,
        status: "sent",
        providerMessageId: null,
        to: null,
        subject: null,
        preview: null,
        content: null,
        errorCode: null,
        errorMessage: null,
        attempts: 1,
        createdAt: now,
        updatedAt: now,
      });
    await store.write(batch);

    const ctx = new DeliveryContext(env);
    const loaded = await Promise.all(chunks.map(({ job, trigger }) => load(ctx, job, trigger)));
    expect(ctx.costs.d1Statements).toBe(3);
    expect(loaded[7]!.existing.size).toBe(0);
    expect([...loaded[8]!.existing.values()].map((m) => [m.subscriberId, m.status])).toEqual([[eight.job.subscriberIds[0], "sent"]]);
    // D1's message of chunk 6 (recorded before the log left D1) is still found.
    expect([...loaded[6]!.existing.values()].map((m) => m.subscriberId)).toEqual(chunks[6]!.job.subscriberIds);
    expect(loaded.filter((l) => l.existing.size > 0)).toHaveLength(2);
  });

  it("finds a subscriber's suppressed phone, push token and chat webhook, and gives each chunk its own channels", async () => {
    const { environment, chunks } = await seed();
    const db = createDb(env.DB);
    const now = new Date();
    const [a, b] = [chunks[0]!.job.subscriberIds[0]!, chunks[1]!.job.subscriberIds[0]!];
    const token = unique("token");
    const hook = `https://hooks.example.com/${unique("hook")}`;
    await db.batch([
      db.update(subscribers).set({ phone: "+15550001111" }).where(eq(subscribers.subscriberId, a)),
      db.insert(subscriberChannels).values([
        { environmentId: environment.id, subscriberId: a, channel: "push", provider: "fcm", address: token, createdAt: now },
        { environmentId: environment.id, subscriberId: a, channel: "push", provider: "fcm", address: unique("kept"), createdAt: now },
        { environmentId: environment.id, subscriberId: b, channel: "chat", provider: "slack", address: hook, createdAt: now },
      ]),
      db.insert(suppressions).values(
        ["+15550001111", token, hook].map((address) => ({
          environmentId: environment.id,
          address,
          channel: "push",
          reason: "invalid_recipient" as const,
          createdAt: now,
        })),
      ),
    ]);
    // Another environment's list never reaches these recipients, even for their own email.
    const other = await createEnvironment();
    await db.insert(suppressions).values({
      environmentId: other.id,
      address: `${b}@example.com`,
      channel: "email",
      reason: "hard_bounce",
      createdAt: now,
    });
    const ctx = new DeliveryContext(env);
    const [first, second] = await Promise.all(chunks.slice(0, 2).map(({ job, trigger }) => load(ctx, job, trigger)));
    // The chunks read together share their list (chunk 3's bounced email is no subscriber of theirs).
    expect([...first!.suppressed].sort()).toEqual(["+15550001111", hook, token].sort());
    expect([...second!.suppressed].sort()).toEqual(["+15550001111", hook, token].sort());
    expect(first!.recipients.get(a)!.profile.pushTokens).toHaveLength(2);
    expect(first!.recipients.get(a)!.profile.pushTokens.find((t) => t.address === token)).toEqual({
      environmentId: environment.id,
      subscriberId: a,
      channel: "push",
      provider: "fcm",
      address: token,
      createdAt: now,
    });
    expect(first!.recipients.get(a)!.profile.chatWebhooks).toEqual([]);
    expect(second!.recipients.get(b)!.profile.chatWebhooks.map((c) => c.address)).toEqual([hook]);
  });

  it("reads a workflow version once per isolate, but a live key (a record from before versions) every time", async () => {
    const { environment, chunks } = await seed();
    const { job, trigger } = chunks[0]!;
    const versioned = { ...trigger, messagesInLog: true };
    const live = { ...versioned, workflowId: undefined, workflowVersion: undefined };
    const statements = async (record: TriggerRecord) => {
      const ctx = new DeliveryContext(env);
      const loaded = await load(ctx, { ...job, environmentId: environment.id }, record);
      expect(loaded.workflow?.steps).toHaveLength(1);
      return ctx.costs.d1Statements;
    };
    expect(await statements(versioned)).toBe(2);
    expect(await statements(versioned)).toBe(1);
    expect(await statements(live)).toBe(2);
    expect(await statements(live)).toBe(2);
    // A purged workflow (no row, not even a tombstone) runs no more, kept or not: the recipients' read checks its row.
    await env.DB.prepare("DELETE FROM workflows WHERE id = ?").bind(trigger.workflowId).run();
    const ctx = new DeliveryContext(env);
    expect((await load(ctx, { ...job, environmentId: environment.id }, versioned)).workflow).toBeNull();
    expect(ctx.costs.d1Statements).toBe(1);
  });
});
