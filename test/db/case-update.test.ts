import { env } from "cloudflare:test";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { messageUpdates } from "../../src/db/queries/message-rows";
import { messages } from "../../src/db/schema";
import { createEnvironment, unique } from "../factories";
import { updateMany } from "./drizzle-statements";
import { recorded, recordingD1 } from "./recorded";
import { storedRows } from "./stored";

const db = createDb(env.DB);
const at = (i: number) => new Date(1_700_000_000_123 + i * 1_001);
const pick = <V>(i: number, values: V[]) => values[i % values.length]!;

type Values = Parameters<typeof updateMany>[2][number]["values"];
type Column = Parameters<typeof updateMany>[1][number];
/** Updates of one shape (the same columns), as MessageWrites groups them. */
type Group = { columns: Column[]; updates: { messageId: string; values: Values }[] };

/** Messages as a phase left them before its results: some columns set, the others NULL. */
async function baseMessages(environmentId: string, count: number) {
  const transactionId = unique("tx");
  const rows = Array.from({ length: count }, (_, i) => ({
    id: unique(`msg${i}`),
    environmentId,
    transactionId,
    subscriberId: `s-${i}`,
    workflowKey: "w",
    stepId: "email",
    channel: "email",
    status: "sending" as const,
    provider: pick(i, [null, "old-provider"]),
    providerMessageId: pick(i, ["pm-old", null]),
    content: { subject: `old ${i}` },
    errorCode: pick(i, ["old_code", null]),
    createdAt: at(0),
    updatedAt: at(0),
  }));
  const write = async () => {
    await db.delete(messages).where(
      inArray(
        messages.id,
        rows.map((r) => r.id),
      ),
    );
    for (const part of Array.from({ length: Math.ceil(rows.length / 5) }, (_, i) => rows.slice(i * 5, i * 5 + 5)))
      await db.insert(messages).values(part);
  };
  await write();
  return { ids: rows.map((r) => r.id), reset: write };
}

/** The groups updated by drizzle's statement, then (the messages reset) by hand: what each stored. */
async function bothWays(ids: string[], reset: () => Promise<void>, groups: Group[]) {
  const before = await storedRows(messages, "id", ids);
  await runBatch(
    db,
    groups.flatMap((g) => updateMany(db, g.columns, g.updates)),
  );
  const byDrizzle = await storedRows(messages, "id", ids);
  await reset();
  await runBatch(
    db,
    groups.flatMap((g) =>
      messageUpdates.statements(
        env.DB,
        g.columns,
        g.updates.map((u) => ({ key: u.messageId, values: u.values })),
      ),
    ),
  );
  return { before, byDrizzle, byHand: await storedRows(messages, "id", ids) };
}

/** JSON that a careless encoding would change: quotes, backslashes, non-ASCII, nesting, numbers, nulls. */
const content = (i: number) => ({ subject: `Über "quotes" 'and' \\ back ${i}`, n: i + 0.5, list: [1, null, { deep: true }], empty: {} });

describe("the hand-bound updates of a delivery phase's messages", () => {
  it("store every column as drizzle's CASE update stored it: shared and varying values, NULLs, JSON, ms timestamps, several statements", async () => {
    const { id: environmentId } = await createEnvironment();
    const { ids, reset } = await baseMessages(environmentId, 60);
    const now = at(7);
    const sent = ids.slice(0, 45);
    const failed = ids.slice(45, 59);
    const groups: Group[] = [
      {
        // As a send's result: status, provider and attempts shared by most, the provider's id and content each its own.
        columns: ["attempts", "content", "provider", "providerMessageId", "status", "subject", "updatedAt"],
        updates: sent.map((messageId, i) => ({
          messageId,
          values: {
            attempts: 1,
            content: pick(i, [content(i), null]),
            provider: "sendgrid",
            providerMessageId: pick(i, [`pm-${i}`, null, ""]),
            status: pick(i, ["sent", "sent", "delivered"]),
            subject: pick(i, [null, `it's "${i}"`]),
            updatedAt: now,
          },
        })),
      },
      {
        // Every value shared: one statement, only the ids bound per row.
        columns: ["errorCode", "errorMessage", "status", "updatedAt"],
        updates: failed.map((messageId) => ({
          messageId,
          values: { errorCode: null, errorMessage: "timeout", status: "failed", updatedAt: now },
        })),
      },
      {
        // One row, a timestamp other than the phase's.
        columns: ["status", "updatedAt"],
        updates: [{ messageId: ids[59]!, values: { status: "opened", updatedAt: at(9) } }],
      },
    ];
    const { before, byDrizzle, byHand } = await bothWays(ids, reset, groups);
    expect(byHand).toHaveLength(ids.length);
    expect(byDrizzle).not.toEqual(before);
    expect(byHand).toEqual(byDrizzle);
  });

  it("bind at most D1's 100 parameters a statement, in as many statements as drizzle's", () => {
    const columns: Column[] = ["content", "provider", "providerMessageId", "status", "updatedAt"];
    for (const varying of [0, 1, 3, 5]) {
      const updates = Array.from({ length: 130 }, (_, i) => ({
        messageId: `msg_${i}`,
        // The first `varying` columns differ per row, the others are shared.
        values: Object.fromEntries(
          columns.map((c, j) => {
            const n = j < varying ? i : 0;
            return [c, c === "updatedAt" ? at(n) : c === "content" ? { n } : `${c}-${n}`];
          }),
        ) as Values,
      }));
      const statements = messageUpdates.statements(
        recordingD1,
        columns,
        updates.map((u) => ({ key: u.messageId, values: u.values })),
      );
      expect(statements.length).toBe(updateMany(db, columns, updates).length);
      for (const statement of statements) expect(recorded(statement).params.length).toBeLessThanOrEqual(100);
    }
  });
});
