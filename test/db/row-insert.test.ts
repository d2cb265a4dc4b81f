import { env } from "cloudflare:test";
import { getTableName, inArray } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { chunk } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { captureRows, eventRows, finalRows, sendingRows } from "../../src/db/queries/message-rows";
import { JSON_ROWS_BUDGET, type RowInsert, type RowOf } from "../../src/db/row-insert";
import { MESSAGE_STATUSES, messageEvents, messages, sandboxMessages } from "../../src/db/schema";
import { createEnvironment, unique } from "../factories";
import { storedRows } from "./stored";

const db = createDb(env.DB);

const stored = (table: SQLiteTable, ids: string[]) => storedRows(table, "id", ids);

/** The rows written by hand, then (once deleted) the same rows through drizzle's insert: what each stored. */
async function bothWays<T extends SQLiteTable, K extends keyof T["$inferInsert"] & string>(
  table: T,
  insert: RowInsert<T, K>,
  rows: (RowOf<RowInsert<T, K>> & { id: string })[],
) {
  const ids = rows.map((r) => r.id);
  await env.DB.batch(insert.statements(env.DB, rows));
  const byHand = await stored(table, ids);
  await env.DB.prepare(`DELETE FROM "${getTableName(table)}" WHERE id IN (SELECT value FROM json_each(?))`)
    .bind(JSON.stringify(ids))
    .run();
  // Every required column is among the shape's (the shapes are checked here), so these are whole inserts.
  for (const part of chunk(rows, insert.rowsPerStatement)) await db.insert(table).values(part as T["$inferInsert"][]);
  return { byHand, byDrizzle: await stored(table, ids) };
}

const at = (i: number) => new Date(1_700_000_000_123 + i * 1_001);
/** JSON that a careless encoding would change: quotes, backslashes, non-ASCII, nesting, numbers, nulls. */
const content = (i: number) => ({
  subject: `Über "quotes" 'and' \\ back ${i}`,
  html: "<p>📦</p>",
  n: i + 0.5,
  list: [1, null, { deep: true }],
  empty: {},
});
const pick = <V>(i: number, values: V[]) => values[i % values.length]!;

describe("the hand-bound inserts of a delivery phase", () => {
  it("store final messages, every column as drizzle's insert stored it (undefined, null and set, over several statements)", async () => {
    const { id: environmentId } = await createEnvironment();
    const transactionId = unique("tx");
    const rows = Array.from({ length: finalRows.rowsPerStatement * 2 + 2 }, (_, i) => ({
      id: unique(`final${i}`),
      environmentId,
      transactionId,
      subscriberId: `s-${i}`,
      workflowKey: "w",
      stepId: "email",
      channel: "email",
      status: pick(i, [...MESSAGE_STATUSES]),
      provider: pick(i, [undefined, null, "sendgrid"]),
      integrationId: pick(i, [undefined, "int_1"]),
      providerMessageId: pick(i, [null, `pm-${i}`, undefined, ""]),
      to: pick(i, [`s-${i}@example.com`, null]),
      subject: pick(i, [undefined, 'Hello "there"', null]),
      preview: pick(i, ["Hi", undefined]),
      content: pick(i, [content(i), null, undefined]),
      errorCode: pick(i, [undefined, "http_400"]),
      errorMessage: pick(i, [null, `it's "bad" ${i}`, undefined]),
      attempts: pick(i, [undefined, 0, 3]),
      createdAt: at(i),
      updatedAt: at(i + 1),
    }));
    const { byHand, byDrizzle } = await bothWays(messages, finalRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });

  it("store messages as `sending` as drizzle's insert stored them", async () => {
    const { id: environmentId } = await createEnvironment();
    const transactionId = unique("tx");
    const rows = Array.from({ length: sendingRows.rowsPerStatement + 1 }, (_, i) => ({
      id: unique(`sending${i}`),
      environmentId,
      transactionId,
      subscriberId: `s-${i}`,
      workflowKey: "w",
      stepId: "push",
      channel: "push",
      status: "sending" as const,
      content: pick(i, [content(i), null]),
      subject: pick(i, [null, "Subject"]),
      preview: pick(i, ["Preview", null]),
      attempts: 0,
      createdAt: at(i),
      updatedAt: at(i),
    }));
    const { byHand, byDrizzle } = await bothWays(messages, sendingRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });

  it("store sandbox captures as drizzle's insert stored them", async () => {
    const { id: environmentId } = await createEnvironment();
    const rows = Array.from({ length: captureRows.rowsPerStatement + 1 }, (_, i) => ({
      id: unique(`cap${i}`),
      environmentId,
      messageId: `msg-${i}`,
      channel: pick(i, ["email", "sms", "chat"]),
      provider: "sandbox",
      to: `to-${i}`,
      content: content(i),
      createdAt: at(i),
    }));
    const { byHand, byDrizzle } = await bothWays(sandboxMessages, captureRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });

  it("store timeline events as drizzle's insert stored them", async () => {
    const { id: environmentId } = await createEnvironment();
    const rows = Array.from({ length: eventRows.rowsPerStatement + 1 }, (_, i) => ({
      id: unique(`evt${i}`),
      environmentId,
      messageId: `msg-${i}`,
      status: pick(i, [...MESSAGE_STATUSES]),
      at: at(i),
      detail: pick(i, [null, { reason: "quiet_hours", until: at(i).toISOString() }, content(i)]),
    }));
    const { byHand, byDrizzle } = await bothWays(messageEvents, eventRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });

  it("keep the first row of a send identity and skip the others, as drizzle's onConflictDoNothing did", async () => {
    const { id: environmentId } = await createEnvironment();
    const identity = { environmentId, transactionId: unique("tx"), subscriberId: "s", workflowKey: "w", stepId: "email", channel: "email" };
    const row = (status: "skipped" | "failed") => ({ id: unique("dup"), ...identity, status, createdAt: at(0), updatedAt: at(0) });
    await env.DB.batch(finalRows.statements(env.DB, [row("skipped"), row("failed")]));
    const kept = await db
      .select({ status: messages.status })
      .from(messages)
      .where(inArray(messages.transactionId, [identity.transactionId]));
    expect(kept).toEqual([{ status: "skipped" }]);
  });

  it("write a thousand rows as one statement (one bound JSON list), stored as drizzle's insert stored them", async () => {
    const { id: environmentId } = await createEnvironment();
    const rows = Array.from({ length: 1_000 }, (_, i) => ({
      id: unique(`many${i}`),
      environmentId,
      messageId: `msg-${i}`,
      channel: pick(i, ["email", "sms", "chat"]),
      provider: "sandbox",
      to: `to-${i}`,
      content: content(i),
      createdAt: at(i),
    }));
    expect(captureRows.statements(env.DB, rows)).toHaveLength(1);
    const { byHand, byDrizzle } = await bothWays(sandboxMessages, captureRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });

  it("split a list past the budget, and write a row larger than it alone, each in its place", async () => {
    const { id: environmentId } = await createEnvironment();
    const big = (i: number) => ({ html: `${"x".repeat(JSON_ROWS_BUDGET / 3)}${i}` });
    const rows = Array.from({ length: 7 }, (_, i) => ({
      id: unique(`big${i}`),
      environmentId,
      messageId: `msg-${i}`,
      channel: "email",
      provider: "sandbox",
      to: `to-${i}`,
      content: i === 3 ? { html: "y".repeat(JSON_ROWS_BUDGET + 1) } : big(i),
      createdAt: at(i),
    }));
    // 0-1 | 2 | 3 alone, bound value by value | 4-5 | 6.
    expect(captureRows.statements(env.DB, rows)).toHaveLength(5);
    const { byHand, byDrizzle } = await bothWays(sandboxMessages, captureRows, rows);
    expect(byHand).toHaveLength(rows.length);
    expect(byHand).toEqual(byDrizzle);
  });
});
