import { createScheduledController, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import {
  analyticsOptOuts,
  auditLog,
  dashboardSessions,
  events,
  idempotencyKeys,
  messageEvents,
  messages,
  sandboxMessages,
  suppressions,
  triggers,
  webhookAttempts,
  webhookReceipts,
  workflows,
  type TriggerStatus,
} from "../../src/db/schema";
import type { Bindings } from "../../src/env";
import worker from "../../src/index";
import { eventRow } from "../../src/db/queries/events";
import { newId } from "../../src/lib/ids";
import { createEnvironment, unique } from "../factories";

const db = createDb(env.DB);
const NOW = Date.now();
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000);

/** Runs the cron handler as the runtime would, with some settings changed. */
async function runRetention(settings: Partial<Bindings> = {}) {
  // The test env's bindings are not own enumerable properties: overlay the settings instead of spreading.
  // Defined, not assigned: an assignment reached the shared env through its prototype, and every
  // later file in the same runtime (vitest.config.ts, `isolate: false`) ran with these settings.
  const withSettings = Object.create(env) as Bindings;
  for (const [name, value] of Object.entries(settings)) Object.defineProperty(withSettings, name, { value, enumerable: true });
  await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: "*/10 * * * *" }), withSettings);
}

/** A message created `age` days ago, with `events` events in its timeline. */
async function message(environmentId: string, age: number, events = 2) {
  const id = newId("msg");
  const at = daysAgo(age);
  await db.insert(messages).values({
    id,
    environmentId,
    transactionId: unique("txn"),
    subscriberId: "s",
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    status: "delivered",
    createdAt: at,
    updatedAt: at,
  });
  for (let i = 0; i < events; i++) {
    await db.insert(messageEvents).values({ id: newId("evt"), environmentId, messageId: id, status: "sent", at });
  }
  return id;
}

async function triggerRow(environmentId: string, age: number, status: TriggerStatus) {
  const transactionId = unique("txn");
  const at = daysAgo(age);
  await db.insert(triggers).values({
    environmentId,
    transactionId,
    workflowKey: "wf",
    status,
    recipients: [],
    payload: {},
    acceptedAt: at,
    createdAt: at,
    updatedAt: at,
  });
  return transactionId;
}

const messageIds = async (environmentId: string) =>
  (await db.select({ id: messages.id }).from(messages).where(eq(messages.environmentId, environmentId))).map((r) => r.id).sort();
const eventCount = async (messageId: string) =>
  (await db.select().from(messageEvents).where(eq(messageEvents.messageId, messageId))).length;
const triggerIds = async (environmentId: string) =>
  (await db.select({ id: triggers.transactionId }).from(triggers).where(eq(triggers.environmentId, environmentId))).map((r) => r.id).sort();

describe("scheduled retention", () => {
  it("deletes messages and their events older than 30 days and keeps younger ones", async () => {
    const { id } = await createEnvironment();
    const old = await message(id, 31);
    const young = await message(id, 29);
    await runRetention();
    expect(await messageIds(id)).toEqual([young]);
    expect(await eventCount(old)).toBe(0);
    expect(await eventCount(young)).toBe(2);
  });

  it("deletes finished triggers older than 30 days, keeping younger and unfinished ones", async () => {
    const { id } = await createEnvironment();
    await triggerRow(id, 31, "completed");
    await triggerRow(id, 31, "cancelled");
    const stuck = await triggerRow(id, 31, "processing");
    const young = await triggerRow(id, 29, "completed");
    await runRetention();
    expect(await triggerIds(id)).toEqual([stuck, young].sort());
  });

  it("purges workflow tombstones a day after the delete once no unfinished trigger needs them", async () => {
    const { id } = await createEnvironment();
    const workflow = async (key: string, deletedAt: Date | null) => {
      const at = daysAgo(3);
      await db.insert(workflows).values({
        id: newId("wf"),
        environmentId: id,
        key,
        name: key,
        active: true,
        critical: false,
        tags: [],
        steps: [],
        createdAt: at,
        updatedAt: at,
        deletedAt,
      });
    };
    await workflow("gone", daysAgo(2));
    await workflow("recent", new Date(NOW - 3_600_000));
    await workflow("live", null);
    await workflow("needed", daysAgo(2));
    await db.insert(triggers).values({
      environmentId: id,
      transactionId: unique("txn"),
      workflowKey: "needed",
      status: "processing",
      recipients: [],
      payload: {},
      acceptedAt: daysAgo(3),
      createdAt: daysAgo(3),
      updatedAt: daysAgo(3),
    });
    await runRetention();
    const left = await db.select({ key: workflows.key }).from(workflows).where(eq(workflows.environmentId, id));
    expect(left.map((w) => w.key).sort()).toEqual(["live", "needed", "recent"]);
  });

  it("follows RETENTION_DAYS", async () => {
    const { id } = await createEnvironment();
    await message(id, 10);
    await runRetention();
    expect(await messageIds(id)).toHaveLength(1);
    await runRetention({ RETENTION_DAYS: "7" });
    expect(await messageIds(id)).toEqual([]);
  });

  it("deletes sandbox captures after SANDBOX_RETENTION_DAYS (7 by default)", async () => {
    const { id } = await createEnvironment();
    const capture = (age: number) => ({
      id: newId("cap"),
      environmentId: id,
      messageId: "msg_x",
      channel: "email",
      provider: "sandbox-email",
      to: "a@example.com",
      content: {},
      createdAt: daysAgo(age),
    });
    const [old, young] = [capture(8), capture(6)];
    await db.insert(sandboxMessages).values([old, young]);
    await runRetention();
    const left = await db.select({ id: sandboxMessages.id }).from(sandboxMessages).where(eq(sandboxMessages.environmentId, id));
    expect(left).toEqual([{ id: young.id }]);
    await runRetention({ SANDBOX_RETENTION_DAYS: "1" });
    expect(await db.select().from(sandboxMessages).where(eq(sandboxMessages.environmentId, id))).toEqual([]);
  });

  it("purges webhook receipts after 72 hours and never purges suppressions", async () => {
    const { id } = await createEnvironment();
    const integrationId = unique("int");
    await db.insert(webhookReceipts).values([
      { integrationId, key: "old", receivedAt: new Date(NOW - 73 * 3_600_000) },
      { integrationId, key: "young", receivedAt: new Date(NOW - 71 * 3_600_000) },
    ]);
    await db
      .insert(suppressions)
      .values({ environmentId: id, address: "gone@example.com", channel: "email", reason: "hard_bounce", createdAt: daysAgo(400) });
    await runRetention();
    const receipts = await db
      .select({ key: webhookReceipts.key })
      .from(webhookReceipts)
      .where(eq(webhookReceipts.integrationId, integrationId));
    expect(receipts).toEqual([{ key: "young" }]);
    expect(await db.select().from(suppressions).where(eq(suppressions.environmentId, id))).toHaveLength(1);
  });

  it("purges dashboard sessions once they have ended", async () => {
    const ended = unique("sess-ended");
    const live = unique("sess-live");
    await db.insert(dashboardSessions).values([
      { id: ended, expiresAt: new Date(NOW - 1000), createdAt: new Date(NOW - 13 * 3_600_000) },
      { id: live, expiresAt: new Date(NOW + 3_600_000), createdAt: new Date(NOW) },
    ]);
    await runRetention();
    const left = (await db.select({ id: dashboardSessions.id }).from(dashboardSessions)).map((r) => r.id);
    expect(left).toContain(live);
    expect(left).not.toContain(ended);
  });

  it("purges Idempotency-Key answers after 24 hours, in every scope", async () => {
    const { id } = await createEnvironment();
    const row = (scope: string, key: string, hours: number) => ({
      scope,
      key,
      fingerprint: "f",
      responseStatus: 201,
      responseBody: "{}",
      createdAt: new Date(NOW - hours * 3_600_000),
    });
    const adminKey = unique("admin-idem");
    await db.insert(idempotencyKeys).values([row(`env:${id}`, "old", 25), row(`env:${id}`, "young", 23), row("admin", adminKey, 25)]);
    await runRetention();
    const left = await db
      .select({ key: idempotencyKeys.key })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.scope, `env:${id}`));
    expect(left).toEqual([{ key: "young" }]);
    expect(await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, adminKey))).toEqual([]);
  });

  it("purges the outbound event log and webhook attempts after RETENTION_DAYS", async () => {
    const { id } = await createEnvironment();
    const old = { ...eventRow(id, "subscriber.created", { subscriberId: "s" }), createdAt: daysAgo(31) };
    const young = { ...eventRow(id, "subscriber.created", { subscriberId: "s" }), createdAt: daysAgo(1) };
    await db.insert(events).values([old, young]);
    const attempt = (eventId: string, createdAt: Date) => ({
      id: newId("att"),
      environmentId: id,
      endpointId: "ep_x",
      eventId,
      eventType: "subscriber.created" as const,
      attempt: 1,
      status: "succeeded" as const,
      responseStatus: 200,
      latencyMs: 3,
      createdAt,
    });
    await db.insert(webhookAttempts).values([attempt(old.id, old.createdAt), attempt(young.id, young.createdAt)]);
    await runRetention();
    expect((await db.select({ id: events.id }).from(events).where(eq(events.environmentId, id))).map((r) => r.id)).toEqual([young.id]);
    expect((await db.select().from(webhookAttempts).where(eq(webhookAttempts.environmentId, id))).map((r) => r.eventId)).toEqual([
      young.id,
    ]);
  });

  it("keeps audit log entries for AUDIT_RETENTION_DAYS (365 by default), whatever RETENTION_DAYS says", async () => {
    const { id, slug } = await createEnvironment();
    const entry = (resourceId: string, age: number) => ({
      id: newId("aud"),
      environmentId: id,
      environmentSlug: slug,
      at: daysAgo(age),
      actorType: "admin" as const,
      actorId: null,
      actorName: "admin",
      resource: "variable" as const,
      resourceId,
      action: "created" as const,
    });
    await db.insert(auditLog).values([entry("ancient", 366), entry("old", 200), entry("recent", 40)]);
    const kept = async () =>
      (await db.select({ r: auditLog.resourceId }).from(auditLog).where(eq(auditLog.environmentId, id))).map((row) => row.r).sort();
    await runRetention({ RETENTION_DAYS: "30" });
    expect(await kept()).toEqual(["old", "recent"]);
    await runRetention({ AUDIT_RETENTION_DAYS: "90" });
    expect(await kept()).toEqual(["recent"]);
  });

  it("keeps the analytics' opt-out counts for ANALYTICS_RETENTION_DAYS (400 by default), past the messages", async () => {
    const { id } = await createEnvironment();
    const row = (channel: string, age: number) => ({
      environmentId: id,
      hour: Math.floor(daysAgo(age).getTime() / 3_600_000) * 3_600_000,
      workflow: "",
      channel,
      reason: "one_click" as const,
      n: 1,
    });
    await db.insert(analyticsOptOuts).values([row("email", 401), row("sms", 200), row("push", 40)]);
    const kept = async () =>
      (await db.select({ c: analyticsOptOuts.channel }).from(analyticsOptOuts).where(eq(analyticsOptOuts.environmentId, id)))
        .map((r) => r.c)
        .sort();
    await runRetention({ RETENTION_DAYS: "30" });
    expect(await kept()).toEqual(["push", "sms"]);
    await runRetention({ ANALYTICS_RETENTION_DAYS: "90" });
    expect(await kept()).toEqual(["push"]);
  });

  it("deletes at most RETENTION_MAX_ROWS rows of a table per run, oldest first", async () => {
    const { id } = await createEnvironment();
    const ids = [];
    for (const age of [35, 34, 33, 32, 31]) ids.push(await message(id, age));
    await runRetention({ RETENTION_MAX_ROWS: "2" });
    expect(await messageIds(id)).toEqual(ids.slice(2).sort());
    expect(await eventCount(ids[0]!)).toBe(0);
    expect(await eventCount(ids[2]!)).toBe(2);
    await runRetention({ RETENTION_MAX_ROWS: "2" });
    expect(await messageIds(id)).toEqual([ids[4]!]);
  });
});
