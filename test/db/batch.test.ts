import { env } from "cloudflare:test";
import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { finalRows } from "../../src/db/queries/message-rows";
import { messages } from "../../src/db/schema";
import { createEnvironment, unique } from "../factories";

const db = createDb(env.DB);
const at = new Date(1_700_000_000_123);

const message = (environmentId: string) => ({
  id: unique("msg"),
  environmentId,
  transactionId: unique("tx"),
  subscriberId: "s",
  workflowKey: "w",
  stepId: "email",
  channel: "email",
  status: "skipped" as const,
  content: { subject: "Hi" },
  createdAt: at,
  updatedAt: at,
});

describe("runBatch with drizzle's queries and hand-bound statements", () => {
  it("answers each statement at its index: a drizzle query's rows mapped, a D1 statement's own result", async () => {
    const { id: environmentId } = await createEnvironment();
    const first = message(environmentId);
    const second = message(environmentId);
    const results = await runBatch(db, [
      ...finalRows.statements(env.DB, [first]),
      db
        .select({ id: messages.id, createdAt: messages.createdAt, content: messages.content })
        .from(messages)
        .where(eq(messages.id, first.id)),
      ...finalRows.statements(env.DB, [second]),
      db
        .update(messages)
        .set({ status: "failed" })
        .where(inArray(messages.id, [first.id, second.id]))
        .returning({ id: messages.id, environmentId: messages.environmentId }),
    ]);
    expect(results).toHaveLength(4);
    expect((results[0] as D1Result).meta.changes).toBe(1);
    expect(results[1]).toEqual([{ id: first.id, createdAt: at, content: { subject: "Hi" } }]);
    expect((results[2] as D1Result).meta.changes).toBe(1);
    // A drizzle query's RETURNING rows, keys as drizzle names them (the outbound-event inserts answer D1Results: db/queries/fact-events.ts).
    expect(results[3]).toEqual(
      expect.arrayContaining([
        { id: first.id, environmentId },
        { id: second.id, environmentId },
      ]),
    );
  });

  it("writes nothing when one statement fails: the hand-bound and drizzle's before it roll back with it", async () => {
    const { id: environmentId } = await createEnvironment();
    const byHand = message(environmentId);
    const byDrizzle = message(environmentId);
    const written = runBatch(db, [
      ...finalRows.statements(env.DB, [byHand]),
      db.insert(messages).values(byDrizzle),
      // NOT NULL columns left out: D1 refuses it, after both inserts ran.
      db.run(sql`INSERT INTO messages (id) VALUES (${unique("bad")})`),
    ]);
    await expect(written).rejects.toThrow(/NOT NULL/);
    const left = await db.select({ id: messages.id }).from(messages).where(eq(messages.environmentId, environmentId));
    expect(left).toEqual([]);
  });
});
