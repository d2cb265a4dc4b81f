import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MessageStatus } from "../../src/contract/statuses";
import { createDb } from "../../src/db/client";
import { messages } from "../../src/db/schema";
import type { MessageStats } from "../../src/features/messages/schemas";
import { statsQuery } from "../../src/features/messages/stats-repository";
import { newId } from "../../src/lib/ids";
import { createEnvironment, createSandboxEnvironment, createWorkflow, trigger, unique } from "../factories";
import { settledMessages } from "../e2e/helpers";
import { api, expectProblem } from "../request";

const db = createDb(env.DB);
const HOUR = 3_600_000;
// A fixed hour, so buckets are known: 2026-03-02T10:00Z.
const T0 = Date.UTC(2026, 2, 2, 10);

async function message(environmentId: string, at: number, status: MessageStatus, channel = "email", provider: string | null = "resend") {
  await db.insert(messages).values({
    id: newId("msg"),
    environmentId,
    transactionId: unique("txn"),
    subscriberId: "s",
    workflowKey: "wf",
    stepId: unique("step"),
    channel,
    provider,
    status,
    createdAt: new Date(at),
    updatedAt: new Date(at),
  });
}

const stats = (key: string, query: string) => api<MessageStats>(key, "GET", `/v1/messages/stats?${query}`);
const range = (from: number, to: number) => `since=${new Date(from).toISOString()}&until=${new Date(to).toISOString()}`;

describe("GET /v1/messages/stats", () => {
  it("counts sent, delivered, opened and failed per hour and channel, each message by how far it got", async () => {
    const { id, key } = await createEnvironment();
    await message(id, T0 + 60_000, "sent");
    await message(id, T0 + 120_000, "delivered");
    await message(id, T0 + 180_000, "opened");
    await message(id, T0 + 240_000, "clicked");
    await message(id, T0 + 300_000, "bounced");
    await message(id, T0 + 360_000, "failed");
    await message(id, T0 + 420_000, "skipped", "email", null);
    await message(id, T0 + 30_000, "delivered", "sms", "twilio");
    await message(id, T0 + HOUR + 5_000, "queued");
    await message(id, T0 - 1, "sent"); // before the range

    const res = await stats(key, range(T0, T0 + 2 * HOUR));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      since: new Date(T0).toISOString(),
      until: new Date(T0 + 2 * HOUR).toISOString(),
      bucket: "hour",
      groupBy: "channel",
      data: [
        { at: new Date(T0).toISOString(), group: "email", total: 7, sent: 5, delivered: 3, opened: 2, failed: 2 },
        { at: new Date(T0).toISOString(), group: "sms", total: 1, sent: 1, delivered: 1, opened: 0, failed: 0 },
        { at: new Date(T0 + HOUR).toISOString(), group: "email", total: 1, sent: 0, delivered: 0, opened: 0, failed: 0 },
      ],
    });
  });

  it("groups by provider in days, with null for messages that reached none", async () => {
    const { id, key } = await createEnvironment();
    await message(id, T0, "delivered", "email", "resend");
    await message(id, T0 + HOUR, "sent", "sms", "twilio");
    await message(id, T0 + 2 * HOUR, "skipped", "email", null);
    await message(id, T0 + 24 * HOUR, "failed", "email", "resend");

    const day = Date.UTC(2026, 2, 2);
    const res = await stats(key, `${range(day, day + 2 * 24 * HOUR)}&bucket=day&groupBy=provider`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { at: new Date(day).toISOString(), group: null, total: 1, sent: 0, delivered: 0, opened: 0, failed: 0 },
      { at: new Date(day).toISOString(), group: "resend", total: 1, sent: 1, delivered: 1, opened: 0, failed: 0 },
      { at: new Date(day).toISOString(), group: "twilio", total: 1, sent: 1, delivered: 0, opened: 0, failed: 0 },
      { at: new Date(day + 24 * HOUR).toISOString(), group: "resend", total: 1, sent: 0, delivered: 0, opened: 0, failed: 1 },
    ]);
  });

  it("counts the messages of a real trigger by provider", async () => {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "notify",
      steps: [
        { id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } },
        { id: "text", type: "sms", template: { body: "Hello" } },
      ],
    });
    const transactionId = await trigger(key, {
      workflow: "notify",
      to: { subscriberId: "ada", email: "ada@example.com", phone: "+41791234567" },
    });
    await settledMessages(key, transactionId, 2);
    const res = await stats(key, "groupBy=provider");
    expect(res.body.data.map(({ group, sent, failed }) => ({ group, sent, failed }))).toEqual([
      { group: "sandbox-email", sent: 1, failed: 0 },
      { group: "sandbox-sms", sent: 1, failed: 0 },
    ]);
  });

  it("sees only the environment of the key", async () => {
    const mine = await createEnvironment();
    const other = await createEnvironment();
    await message(other.id, T0, "sent");
    const res = await stats(mine.key, range(T0, T0 + HOUR));
    expect(res.body.data).toEqual([]);
  });

  it("defaults to the last 24 hours in hours", async () => {
    const { key } = await createEnvironment();
    const res = await stats(key, "");
    expect(res.status).toBe(200);
    expect(res.body.bucket).toBe("hour");
    expect(Date.parse(res.body.until) - Date.parse(res.body.since)).toBe(24 * HOUR);
  });

  it.each([
    ["a backwards range", range(T0 + HOUR, T0)],
    ["more than 7 days of hours", range(T0 - 8 * 24 * HOUR, T0)],
    ["more than 92 days of days", `${range(T0 - 93 * 24 * HOUR, T0)}&bucket=day`],
    ["an unknown bucket", "bucket=minute"],
    ["an unknown grouping", "groupBy=status"],
    ["a time that is not one", "since=yesterday"],
  ])("refuses %s", async (_, query) => {
    const { key } = await createEnvironment();
    expectProblem(await stats(key, query), 422, "validation_failed");
  });

  it("reads only the covering index", async () => {
    const query = statsQuery(db, "env_x", { bucket: "hour", groupBy: "provider" }, { since: T0, until: T0 + HOUR }).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail).join("\n")).toMatch(/USING COVERING INDEX messages_env_created_idx/);
  });
});
