import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/db/batch";
import { createDb } from "../../../src/db/client";
import { messageEvents, messages, sandboxMessages, suppressions } from "../../../src/db/schema";
import { DeliveryContext } from "../../../src/delivery/context";
import { MessageWrites } from "../../../src/delivery/writes/message-writes";
import { createEnvironment, unique } from "../../factories";

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
    });
    const created = new MessageWrites(db, new Date());
    const ids = Array.from({ length: 300 }, (_, n) => created.insertSending(identity(n), { content: { n } }));
    await runBatch(db, created.all());

    const results = new MessageWrites(db, new Date());
    ids.forEach((id, n) => {
      const fields = { provider: "fcm", integrationId: "int_1", to: `token-${n}`, attempts: 1 };
      if (n % 3 === 0)
        results.update(environmentId, id, "failed", { ...fields, errorCode: "http_400", errorMessage: `bad ${n}` }, { status: "failed" });
      else results.update(environmentId, id, "sent", { ...fields, providerMessageId: `pm-${n}`, errorCode: null }, { status: "sent" });
    });
    const statements = results.all();
    // One UPDATE per message would be 300 statements (plus the events' inserts).
    expect(statements.length).toBeLessThan(60);
    await runBatch(db, statements);

    const rows = await env.DB.prepare(
      'SELECT subscriber_id AS s, status, provider_message_id AS pm, "to", error_message AS err, attempts FROM messages WHERE transaction_id = ? ORDER BY rowid',
    )
      .bind(transactionId)
      .all<{ s: string; status: string; pm: string | null; to: string; err: string | null; attempts: number }>();
    expect(rows.results).toHaveLength(300);
    for (const [n, row] of rows.results.entries()) {
      expect(row).toEqual(
        n % 3 === 0
          ? { s: `s-${n}`, status: "failed", pm: null, to: `token-${n}`, err: `bad ${n}`, attempts: 1 }
          : { s: `s-${n}`, status: "sent", pm: `pm-${n}`, to: `token-${n}`, err: null, attempts: 1 },
      );
    }
    const events = await env.DB.prepare(
      "SELECT count(*) AS n FROM message_events WHERE message_id IN (SELECT id FROM messages WHERE transaction_id = ?)",
    )
      .bind(transactionId)
      .first<{ n: number }>();
    expect(events?.n).toBe(300);
  });

  it("writes a final message, its timeline and a capture with every column as given", async () => {
    const { id: environmentId } = await createEnvironment();
    const db = createDb(env.DB);
    const now = new Date(1_700_000_000_123);
    const identity = { environmentId, transactionId: unique("tx"), subscriberId: "s", workflowKey: "w", stepId: "email", channel: "email" };
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
    await runBatch(db, writes.all());

    const [row] = await db.select().from(messages).where(eq(messages.id, id));
    expect(row).toEqual({
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
      createdAt: now,
      updatedAt: now,
    });
    const timeline = await db.select().from(messageEvents).where(eq(messageEvents.messageId, id));
    expect(timeline).toEqual([
      { id: expect.stringMatching(/^evt_/), environmentId, messageId: id, status: "failed", at: now, detail: { error: "http_400" } },
    ]);
    const captures = await db.select().from(sandboxMessages).where(eq(sandboxMessages.messageId, id));
    expect(captures).toEqual([
      {
        id: expect.stringMatching(/^cap_/),
        environmentId,
        messageId: id,
        channel: "email",
        provider: "sandbox",
        to: "s@example.com",
        content,
        createdAt: now,
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
    });
    const sending = writes.insertSending(identity("mail"), { content: { subject: "Hi" } });
    writes.insertFinal(identity("skip"), "skipped", {}, [{ status: "skipped", detail: { reason: "test" } }]);
    writes.suppress({ environmentId, channel: "email", address: "s@example.com", reason: "hard_bounce", messageId: sending });
    // A capture D1 refuses (no address, which is NOT NULL): it runs after the messages and the suppression, before the timeline.
    writes.capture(environmentId, sending, { channel: "email", provider: "sandbox", to: null as unknown as string, content: {} });

    await expect(ctx.writeMessages(writes)).rejects.toThrow(/NOT NULL/);
    const left = await Promise.all([
      ctx.db.select({ id: messages.id }).from(messages).where(eq(messages.environmentId, environmentId)),
      ctx.db.select({ id: messageEvents.id }).from(messageEvents).where(eq(messageEvents.environmentId, environmentId)),
      ctx.db.select({ address: suppressions.address }).from(suppressions).where(eq(suppressions.environmentId, environmentId)),
      ctx.db.select({ id: sandboxMessages.id }).from(sandboxMessages).where(eq(sandboxMessages.environmentId, environmentId)),
    ]);
    expect(left).toEqual([[], [], [], []]);
  });
});
