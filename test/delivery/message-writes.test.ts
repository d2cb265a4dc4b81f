import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { MessageWrites } from "../../src/delivery/message-writes";
import { createEnvironment, unique } from "../factories";

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
});
