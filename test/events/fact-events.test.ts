// The statements that write events about facts other rows hold, run against D1 directly: the
// same fact written twice (a retried batch) is one event, and what the data may name.
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { messageFactEvents, suppressionFactEvents, triggerFactEvents, writtenEvents } from "../../src/db/queries/fact-events";
import { suppressionRow, suppressionRows } from "../../src/db/queries/suppressions";
import { events, messages, triggers } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";

const db = createDb(env.DB);
let environmentId: string;

beforeAll(async () => {
  const environment = await createEnvironment();
  environmentId = environment.id;
  await api(environment.key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
});

const stored = (type: string) =>
  db
    .select()
    .from(events)
    .where(eq(events.environmentId, environmentId))
    .then((rows) => rows.filter((r) => r.type === type));

describe("events written with their facts", () => {
  it("writes a message fact once however often its batch runs, with the same id", async () => {
    const now = new Date();
    const messageId = newId("msg");
    await db.insert(messages).values({
      id: messageId,
      environmentId,
      transactionId: unique("txn"),
      subscriberId: "s",
      workflowKey: "w",
      stepId: "mail",
      channel: "email",
      status: "sent",
      provider: "resend",
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    });
    const fact = { type: "message.sent" as const, environmentId, messageId, at: now, status: "sent", reason: null };
    const first = writtenEvents(await runBatch(db, [messageFactEvents(db, [fact])]), [0]);
    const again = writtenEvents(await runBatch(db, [messageFactEvents(db, [fact])]), [0]);
    expect(first).toHaveLength(1);
    expect(first[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(again).toEqual([]);
    expect((await stored("message.sent")).filter((e) => e.data.messageId === messageId).map((e) => e.id)).toEqual([first[0]!.id]);
  });

  it("writes nothing for a fact whose environment is not its message's", async () => {
    const now = new Date();
    const messageId = newId("msg");
    await db.insert(messages).values({
      id: messageId,
      environmentId,
      transactionId: unique("txn"),
      subscriberId: "s",
      workflowKey: "w",
      stepId: "mail",
      channel: "email",
      status: "sent",
      provider: "resend",
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    });
    const other = await createEnvironment();
    const fact = { type: "message.sent" as const, environmentId: other.id, messageId, at: now, status: "sent", reason: null };
    expect(writtenEvents(await runBatch(db, [messageFactEvents(db, [fact])]), [0])).toEqual([]);
    expect((await stored("message.sent")).filter((e) => e.data.messageId === messageId)).toEqual([]);
  });

  it("writes trigger.completed once for a trigger finished twice", async () => {
    const transactionId = unique("txn");
    const now = new Date();
    await db.insert(triggers).values({
      environmentId,
      transactionId,
      workflowKey: "w",
      status: "completed",
      recipients: [],
      payload: {},
      acceptedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const item = [{ environmentId, transactionId }];
    await runBatch(db, [triggerFactEvents(db, "trigger.completed", item)]);
    await runBatch(db, [triggerFactEvents(db, "trigger.completed", item)]);
    expect((await stored("trigger.completed")).filter((e) => e.data.transactionId === transactionId)).toHaveLength(1);
  });

  it("names an email put on the suppression list, never a chat webhook URL", async () => {
    const at = new Date();
    const slack = `https://hooks.slack.com/services/T/B/${unique("secret")}`;
    const input = (channel: string, address: string) => ({ environmentId, channel, address, reason: "invalid_recipient" as const, at });
    await runBatch(db, [
      ...suppressionRows.statements(env.DB, [suppressionRow(input("email", "Bounced@Example.com")), suppressionRow(input("chat", slack))]),
      suppressionFactEvents(db, [
        { environmentId, address: "bounced@example.com", at },
        { environmentId, address: slack, at },
      ]),
    ]);
    const added = await stored("suppression.added");
    expect(added.map((e) => e.data.address).sort()).toEqual(["bounced@example.com", null]);
    expect(JSON.stringify(added)).not.toContain(slack);
  });
});
