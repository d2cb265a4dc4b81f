// A new message is written once, after its send: a delivery that read its subscriber just
// before their erasure writes the message after it. The shard must redact that late write as
// the erasure would have, and must not redact a message made after the erasure.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import type { LogCapture, LogEvent, LogMessage } from "../../src/durable-objects/log/rows";
import { newId } from "../../src/lib/ids";
import { unique } from "../factories";
import { logMessage } from "../log";

const message = (environmentId: string, subscriberId: string, at: number): LogMessage =>
  logMessage({
    environmentId,
    subscriberId,
    createdAt: at,
    provider: "sandbox-email",
    integrationId: "int_1",
    providerMessageId: "p-1",
    to: "erased@example.com",
    subject: "Your code",
    preview: "Your code is 1234",
    content: { subject: "Your code", text: "Your code is 1234" },
  });

const sent = (m: LogMessage): LogEvent => ({
  id: newId("evt"),
  environmentId: m.environmentId,
  messageId: m.id,
  status: "sent",
  at: m.createdAt,
  detail: { to: m.to },
});

const captured = (m: LogMessage): LogCapture => ({
  id: newId("cap"),
  environmentId: m.environmentId,
  messageId: m.id,
  channel: "email",
  provider: "sandbox-email",
  to: m.to ?? "",
  content: m.content ?? {},
  createdAt: m.createdAt,
});

describe("a write that comes after its subscriber's erasure", () => {
  it("is redacted when its message was made before the erasure, and kept when made after", async () => {
    const name = unique("log-erased");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const subscriberId = unique("sub");
    const other = unique("sub");
    const now = Date.now();
    // Read (and sent) before the erasure, written after it.
    const late = message(environmentId, subscriberId, now - 5_000);
    const untouched = message(environmentId, other, now - 5_000);
    await shard.eraseSubscriber(environmentId, subscriberId);
    await shard.write(name, {
      inserts: [late, untouched],
      events: [sent(late), sent(untouched)],
      captures: [captured(late), captured(untouched)],
    });
    // The same id made again later: a new subscriber, messaged anew.
    const later = message(environmentId, subscriberId, Date.now() + 1_000);
    await shard.write(name, { inserts: [later], events: [sent(later)], captures: [captured(later)] });

    const rows = await runInDurableObject(shard, (_o: LogShard, state) =>
      state.storage.sql
        .exec<{
          id: string;
          to: string | null;
          content: string | null;
          subject: string | null;
          preview: string | null;
          detail: string | null;
        }>(`SELECT m.id, m."to", m.content, m.subject, m.preview, e.detail FROM messages m JOIN message_events e ON e.message_id = m.id`)
        .toArray(),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(late.id)).toEqual({ id: late.id, to: null, content: null, subject: null, preview: null, detail: null });
    expect(byId.get(untouched.id)).toMatchObject({ to: "erased@example.com", subject: "Your code" });
    expect(byId.get(later.id)).toMatchObject({ to: "erased@example.com", subject: "Your code" });
    // The sandbox's capture of the late send (its address and content in clear) goes too.
    const captures = await runInDurableObject(shard, (o: LogShard) => o.sandboxCaptures(environmentId, 10));
    expect(captures.map((c) => c.messageId).sort()).toEqual([untouched.id, later.id].sort());
  });

  it("forgets an erasure after a day (the expiry pass)", async () => {
    const name = unique("log-erased");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const subscriberId = unique("sub");
    await shard.eraseSubscriber(environmentId, subscriberId);
    await shard.expire(Date.now() + 2 * 86_400_000);
    const left = await runInDurableObject(shard, (_o: LogShard, state) =>
      Number(state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM erased_subscribers").one().n),
    );
    expect(left).toBe(0);
  });
});
