import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MessageStatus } from "../../src/contract/statuses";
import { createDb } from "../../src/db/client";
import { messages } from "../../src/db/schema";
import type { MessageStats } from "../../src/features/messages/schemas";
import { statsQuery } from "../../src/features/messages/stats-repository";
import { newId } from "../../src/lib/ids";
import { createEnvironment, createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { byStep, type MessageDetail, messageDetail } from "../e2e/helpers";
import { api, expectProblem, fetchSettled } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

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
        {
          at: new Date(T0).toISOString(),
          group: "email",
          total: 7,
          sent: 5,
          delivered: 3,
          opened: 2,
          clicked: 1,
          seen: 0,
          read: 0,
          archived: 0,
          failed: 2,
        },
        {
          at: new Date(T0).toISOString(),
          group: "sms",
          total: 1,
          sent: 1,
          delivered: 1,
          opened: 0,
          clicked: 0,
          seen: 0,
          read: 0,
          archived: 0,
          failed: 0,
        },
        {
          at: new Date(T0 + HOUR).toISOString(),
          group: "email",
          total: 1,
          sent: 0,
          delivered: 0,
          opened: 0,
          clicked: 0,
          seen: 0,
          read: 0,
          archived: 0,
          failed: 0,
        },
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
      {
        at: new Date(day).toISOString(),
        group: null,
        total: 1,
        sent: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        seen: 0,
        read: 0,
        archived: 0,
        failed: 0,
      },
      {
        at: new Date(day).toISOString(),
        group: "resend",
        total: 1,
        sent: 1,
        delivered: 1,
        opened: 0,
        clicked: 0,
        seen: 0,
        read: 0,
        archived: 0,
        failed: 0,
      },
      {
        at: new Date(day).toISOString(),
        group: "twilio",
        total: 1,
        sent: 1,
        delivered: 0,
        opened: 0,
        clicked: 0,
        seen: 0,
        read: 0,
        archived: 0,
        failed: 0,
      },
      {
        at: new Date(day + 24 * HOUR).toISOString(),
        group: "resend",
        total: 1,
        sent: 0,
        delivered: 0,
        opened: 0,
        clicked: 0,
        seen: 0,
        read: 0,
        archived: 0,
        failed: 1,
      },
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
    const transactionId = await triggerDelivered(key, {
      workflow: "notify",
      to: { subscriberId: "ada", email: "ada@example.com", phone: "+41791234567" },
    });
    await deliveredMessages(key, transactionId, 2);
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

  it("reads only covering indexes: the messages' range and one seek in each one's timeline", async () => {
    const query = statsQuery(db, "env_x", { bucket: "hour", groupBy: "provider" }, { since: T0, until: T0 + HOUR }).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join("\n");
    expect(details).toMatch(/USING COVERING INDEX messages_env_created_idx/);
    expect(details).toMatch(/SEARCH message_events USING COVERING INDEX message_events_message_idx \(message_id=\?\)/);
    expect(details).not.toMatch(/SCAN message_events/);
    // Once per message, not once per figure.
    expect(details.match(/SEARCH message_events/g)).toHaveLength(1);
  });
});

/** The states a timeline proves, by the documented rules: a state implies the ones before it. */
const IMPLIED: Record<string, string[]> = {
  sent: ["sent"],
  delivered: ["sent", "delivered"],
  opened: ["sent", "delivered", "opened"],
  clicked: ["sent", "delivered", "opened", "clicked"],
  bounced: ["sent", "failed"],
  failed: ["failed"],
  undeliverable: ["failed"],
  seen: ["sent", "delivered", "seen"],
  read: ["sent", "delivered", "seen", "read"],
  archived: ["sent", "delivered", "archived"],
};
const FIGURES = ["sent", "delivered", "opened", "clicked", "seen", "read", "archived", "failed"] as const;

describe("GET /v1/messages/stats after the messages moved on", () => {
  it("counts each message under every state its timeline reached, as counting the messages does", async () => {
    const { key } = await createSandboxEnvironment();
    const workflow = unique("moved");
    await createWorkflow(key, {
      key: workflow,
      steps: [
        { id: "bell", type: "in_app", template: { subject: "Hi", body: "Your report is ready" } },
        { id: "mail", type: "email", tracking: { opens: true }, template: { subject: "Hi", html: "<html><body>Hello</body></html>" } },
      ],
    });
    const people = Array.from({ length: 6 }, (_, i) => ({ subscriberId: unique(`reader${i}`), email: `r${i}@example.com` }));
    const transactionId = await triggerDelivered(key, { workflow, to: people });
    const sent = await deliveredMessages(key, transactionId, 12);

    // In the Inbox: one left alone, one seen, one read, one archived unread, one read then
    // archived, one read then marked unread again.
    const inApp = people.map((p) => byStep(sent, "bell", p.subscriberId));
    const change = async (i: number, body: Record<string, boolean>) => {
      const res = await api(key, "PATCH", `/v1/subscribers/${people[i]!.subscriberId}/notifications/${inApp[i]!.id}`, body);
      expect(res.status).toBe(200);
    };
    await change(1, { seen: true });
    await change(2, { read: true });
    await change(3, { archived: true });
    await change(4, { read: true });
    await change(4, { archived: true });
    await change(5, { read: true });
    await change(5, { read: false });
    // Two emails opened through their tracking pixel.
    for (const i of [0, 1]) {
      const email = byStep(sent, "mail", people[i]!.subscriberId);
      const captures = await api<{ data: { content: { html: string } }[] }>(key, "GET", `/v1/sandbox/messages?messageId=${email.id}`);
      const pixel = new URL(/<img src="([^"]+)"/.exec(captures.body.data[0]!.content.html)![1]!);
      // The open is recorded in the request's waitUntil: done when fetchSettled returns.
      expect((await fetchSettled(pixel.pathname)).status).toBe(200);
      expect((await messageDetail(key, email.id)).status).toBe("opened");
    }

    const details = await Promise.all(sent.map((m) => messageDetail(key, m.id)));
    const counted = (groupOf: (m: MessageDetail) => string | null) => {
      const groups = new Map<string | null, Record<string, number>>();
      for (const m of details) {
        const group = groupOf(m);
        const row = groups.get(group) ?? { total: 0, ...Object.fromEntries(FIGURES.map((f) => [f, 0])) };
        const reached = new Set([m.status, ...m.events.map((e) => e.status)].flatMap((s) => IMPLIED[s] ?? []));
        row.total! += 1;
        for (const f of FIGURES) if (reached.has(f)) row[f]! += 1;
        groups.set(group, row);
      }
      return [...groups].map(([group, row]) => ({ group, ...row }));
    };
    const figures = async (groupBy: string) => (await stats(key, `groupBy=${groupBy}`)).body.data.map(({ at: _, ...row }) => row);
    const sorted = <T extends { group: string | null }>(rows: T[]) => rows.sort((a, b) => String(a.group).localeCompare(String(b.group)));

    expect(await figures("channel")).toEqual(sorted(counted((m) => m.channel)));
    expect(await figures("provider")).toEqual(sorted(counted((m) => m.provider)));
    // The same figures, written out: no in-app message is lost to the state it is in now.
    expect(await figures("channel")).toEqual([
      { group: "email", total: 6, sent: 6, delivered: 2, opened: 2, clicked: 0, seen: 0, read: 0, archived: 0, failed: 0 },
      { group: "in_app", total: 6, sent: 6, delivered: 6, opened: 0, clicked: 0, seen: 4, read: 3, archived: 2, failed: 0 },
    ]);
  });
});
