import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { messageEvents, messages } from "../../src/db/schema";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { type LogMessage, LogStore } from "../../src/durable-objects/client/log-store";
import type { MessageStats } from "../../src/features/messages/schemas";
import { newId, newLogId } from "../../src/lib/ids";
import { sign } from "../../src/lib/secrets";
import { createEnvironment, createIntegration, unique } from "../factories";
import { api } from "../request";
import { adminEnvironment, admin } from "../admin/helpers";
import { postResendWebhook } from "../e2e/helpers";

// Messages written to the log shards since v4, and D1's legacy rows (0.12's log, kept until they
// expire): every read answers both.
const db = createDb(env.DB);
const logs = new LogStore(env);
// An hour ago, on the hour: recent, so no expiry pass of a shared shard (other test files run one) takes these rows.
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;

type Detail = {
  id: string;
  status: string;
  subject: string | null;
  to: string | null;
  content: unknown;
  events: { status: string; detail: unknown }[];
};
type Page = { data: { id: string; subject: string | null }[]; nextCursor: string | null };

function logMessage(environmentId: string, subscriberId: string, at: number, over: Partial<LogMessage> = {}): LogMessage {
  return {
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId: unique("txn"),
    subscriberId,
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    provider: "resend",
    integrationId: null,
    status: "sent",
    providerMessageId: null,
    to: "log@example.com",
    subject: "from the log",
    preview: "P",
    content: { html: "<p>log</p>" },
    errorCode: null,
    errorMessage: null,
    attempts: 1,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

async function writeLogged(message: LogMessage, refs = false) {
  const batch = logs.batch();
  batch.insert(message);
  batch.event({
    id: newId("evt"),
    environmentId: message.environmentId,
    messageId: message.id,
    status: "sent",
    at: message.createdAt,
    detail: { via: "log" },
  });
  if (refs && message.providerMessageId)
    batch.ref({ providerMessageId: message.providerMessageId, environmentId: message.environmentId, messageId: message.id });
  await logs.write(batch);
  return message;
}

async function writeLegacy(environmentId: string, subscriberId: string, at: number, status: "sent" | "delivered" = "sent") {
  const id = newId("msg");
  await db.insert(messages).values({
    id,
    environmentId,
    transactionId: unique("txn"),
    subscriberId,
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    provider: "resend",
    status,
    to: "legacy@example.com",
    subject: "from D1",
    createdAt: new Date(at),
    updatedAt: new Date(at),
  });
  await db
    .insert(messageEvents)
    .values({ id: newId("evt"), environmentId, messageId: id, status: "sent", at: new Date(at), detail: { via: "d1" } });
  return id;
}

describe("reads merge the log's messages with D1's legacy ones", () => {
  it("pages GET /v1/messages newest first over both stores with one cursor", async () => {
    const { id, key } = await createEnvironment();
    // Interleaved in time: legacy, log, legacy, log (oldest to newest).
    const a = await writeLegacy(id, "ada", T0 + 1_000);
    const b = (await writeLogged(logMessage(id, "bob", T0 + 2_000))).id;
    const c = await writeLegacy(id, "bob", T0 + 3_000);
    const d = (await writeLogged(logMessage(id, "ada", T0 + 4_000))).id;

    const first = await api<Page>(key, "GET", "/v1/messages?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data.map((m) => m.id)).toEqual([d, c]);
    expect(first.body.nextCursor).not.toBeNull();
    const second = await api<Page>(key, "GET", `/v1/messages?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((m) => m.id)).toEqual([b, a]);
    expect(second.body.nextCursor).toBeNull();

    const ada = await api<Page>(key, "GET", "/v1/messages?subscriberId=ada");
    expect(ada.body.data.map((m) => m.id)).toEqual([d, a]);
    const since = await api<Page>(
      key,
      "GET",
      `/v1/messages?since=${new Date(T0 + 1_500).toISOString()}&until=${new Date(T0 + 3_500).toISOString()}`,
    );
    expect(since.body.data.map((m) => m.id)).toEqual([c, b]);
  });

  it("finds a message of either store with its timeline", async () => {
    const { id, key } = await createEnvironment();
    const logged = await writeLogged(logMessage(id, "ada", T0));
    const legacy = await writeLegacy(id, "ada", T0);

    const fromLog = await api<Detail>(key, "GET", `/v1/messages/${logged.id}`);
    expect(fromLog.status).toBe(200);
    expect(fromLog.body).toMatchObject({ id: logged.id, subject: "from the log", content: { html: "<p>log</p>" } });
    expect(fromLog.body.events).toEqual([{ status: "sent", at: new Date(T0).toISOString(), detail: { via: "log" } }]);
    const fromD1 = await api<Detail>(key, "GET", `/v1/messages/${legacy}`);
    expect(fromD1.body).toMatchObject({ id: legacy, subject: "from D1", events: [{ status: "sent", detail: { via: "d1" } }] });

    // Another environment's key finds neither.
    const other = await createEnvironment();
    expect((await api(other.key, "GET", `/v1/messages/${logged.id}`)).status).toBe(404);
  });

  it("counts both stores in GET /v1/messages/stats", async () => {
    const { id, key } = await createEnvironment();
    await writeLogged(logMessage(id, "ada", T0 + 60_000));
    await writeLogged(logMessage(id, "bob", T0 + 120_000, { status: "delivered" }));
    await writeLegacy(id, "cy", T0 + 180_000, "delivered");
    const res = await api<MessageStats>(
      key,
      "GET",
      `/v1/messages/stats?bucket=hour&since=${new Date(T0).toISOString()}&until=${new Date(T0 + 3_600_000).toISOString()}`,
    );
    expect(res.body.data).toEqual([
      {
        at: new Date(T0).toISOString(),
        group: "email",
        total: 3,
        sent: 3,
        delivered: 2,
        opened: 0,
        clicked: 0,
        seen: 0,
        read: 0,
        archived: 0,
        failed: 0,
      },
    ]);
  });

  it("counts a trigger's messages of both stores in its status", async () => {
    const { id, key } = await createEnvironment();
    const logged = await writeLogged(logMessage(id, "ada", T0));
    await db.insert(messages).values({
      id: newId("msg"),
      environmentId: id,
      transactionId: logged.transactionId,
      subscriberId: "bob",
      workflowKey: "wf",
      stepId: "mail",
      channel: "email",
      status: "failed",
      createdAt: new Date(T0),
      updatedAt: new Date(T0),
    });
    const { triggers } = await import("../../src/db/schema");
    await db.insert(triggers).values({
      environmentId: id,
      transactionId: logged.transactionId,
      workflowKey: "wf",
      workflowVersion: 3,
      status: "completed",
      recipients: ["ada", "bob"],
      payload: {},
      acceptedAt: new Date(T0),
      createdAt: new Date(T0),
      updatedAt: new Date(T0),
    });
    const res = await api<{ workflowVersion: number; messages: { total: number; byStatus: Record<string, number> } }>(
      key,
      "GET",
      `/v1/trigger/${logged.transactionId}`,
    );
    expect(res.body.messages).toEqual({ total: 2, byStatus: { sent: 1, failed: 1 } });
    // A log message's version is its trigger's, as a legacy one's is.
    expect((await api<{ workflowVersion: number }>(key, "GET", `/v1/messages/${logged.id}`)).body.workflowVersion).toBe(3);
    // The subscriber filter of the trigger list finds it through the log.
    const listed = await api<{ data: { transactionId: string }[] }>(key, "GET", "/v1/triggers?subscriberId=ada");
    expect(listed.body.data.map((t) => t.transactionId)).toEqual([logged.transactionId]);
  });
});

describe("status reports and erasure reach log messages", () => {
  const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  it("a provider callback finds a log message through its provider ref and moves it to delivered", async () => {
    const { id, key } = await createEnvironment();
    const integrationId = await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: { apiKey: "re_x", from: "a@acme.dev", webhookSecret: SECRET },
      primary: true,
    });
    expect((await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" })).status).toBe(201);
    const providerMessageId = `re_${unique("id")}`;
    const message = await writeLogged(logMessage(id, "ada", Date.now(), { integrationId, providerMessageId }), true);
    const body = JSON.stringify({
      type: "email.delivered",
      created_at: new Date().toISOString(),
      data: { email_id: providerMessageId, to: ["log@example.com"] },
    });
    const res = await postResendWebhook(integrationId, body, SECRET);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 1, applied: 1 });
    const detail = (await api<Detail>(key, "GET", `/v1/messages/${message.id}`)).body;
    expect(detail.status).toBe("delivered");
    expect(detail.events.map((e) => e.status)).toEqual(["sent", "delivered"]);
    // Its outbound event names the message, its trigger and subscriber, from the log's row.
    const outbound = await api<{ data: { type: string; data: Record<string, unknown> }[] }>(
      key,
      "GET",
      "/v1/events?type=message.delivered",
    );
    expect(outbound.body.data.map((e) => e.data)).toEqual([
      expect.objectContaining({
        messageId: message.id,
        transactionId: message.transactionId,
        subscriberId: "ada",
        channel: "email",
        status: "delivered",
      }),
    ]);

    // A replay changes nothing: the timeline already holds the delivery.
    expect(await (await postResendWebhook(integrationId, body, SECRET)).json()).toEqual({ received: 1, applied: 1 });
    expect((await api<Detail>(key, "GET", `/v1/messages/${message.id}`)).body.events).toHaveLength(2);
    expect((await api<{ data: unknown[] }>(key, "GET", "/v1/events?type=message.delivered")).body.data).toHaveLength(1);
  });

  it("a tracked link (which names the message only) records a log message clicked", async () => {
    const { id, key } = await createEnvironment();
    const message = await writeLogged(logMessage(id, "ada", Date.now()));
    const target = "https://acme.dev/a";
    const signature = await sign(env.ENCRYPTION_KEY, `c:${message.id}:${target}`);
    const click = await SELF.fetch(`http://clarion.test/t/c/${message.id}.${signature}?u=${encodeURIComponent(target)}`, {
      redirect: "manual",
    });
    expect(click.status).toBe(302);
    const detail = (await api<Detail>(key, "GET", `/v1/messages/${message.id}`)).body;
    expect(detail.status).toBe("clicked");
    expect(detail.events).toEqual([
      expect.objectContaining({ status: "sent" }),
      expect.objectContaining({ status: "clicked", detail: { url: target } }),
    ]);
  });

  it("erasing a subscriber redacts their log messages and keeps others'", async () => {
    const { id, key } = await createEnvironment();
    expect((await api(key, "POST", "/sub", { subscriberId: "ada", email: "log@example.com" })).status).toBe(201);
    const theirs = await writeLogged(logMessage(id, "ada", T0));
    const others = await writeLogged(logMessage(id, "bob", T0));
    const erased = await api<{ erased: { messagesRedacted: number } }>(key, "DELETE", "/v1/subscribers/ada");
    expect(erased.status).toBe(200);
    expect(erased.body.erased.messagesRedacted).toBe(1);
    const detail = (await api<Detail>(key, "GET", `/v1/messages/${theirs.id}`)).body;
    expect(detail).toMatchObject({ status: "sent", to: null, subject: null, content: null });
    expect(detail.events).toEqual([expect.objectContaining({ status: "sent", detail: null })]);
    expect((await api<Detail>(key, "GET", `/v1/messages/${others.id}`)).body.subject).toBe("from the log");
  });

  it("deleting an environment empties its rows in the log's shards, by the erasure it enqueues", async () => {
    const { environment } = await adminEnvironment();
    const other = await createEnvironment();
    const theirs = await writeLogged(logMessage(environment.id, "ada", T0));
    const kept = await writeLogged(logMessage(other.id, "ada", T0));
    expect((await admin("DELETE", `/environments/${environment.slug}`)).status).toBe(204);
    // The request enqueues the shards' erasure (test/admin/environments.test.ts runs those jobs); here, what they do, on every shard.
    expect(await logs.eraseEnvironment(environment.id)).toMatchObject({ more: false });
    expect(await logs.find(environment.id, [theirs.id])).toEqual([]);
    expect(await logs.find(other.id, [kept.id])).toHaveLength(1);
  });
});
