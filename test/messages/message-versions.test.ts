import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { type LogMessage, LogStore } from "../../src/durable-objects/client/log-store";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { addMissingColumns } from "../../src/durable-objects/log/schema";
import type { Message, MessageWithEvents } from "../../src/features/messages/schemas";
import { newLogId } from "../../src/lib/ids";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { api } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const logs = new LogStore(env);

function logMessage(environmentId: string, over: Partial<LogMessage> = {}): LogMessage {
  const subscriberId = unique("s");
  const at = Date.now();
  return {
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId: unique("txn"),
    subscriberId,
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    provider: "sandbox",
    integrationId: null,
    status: "sent",
    providerMessageId: null,
    to: "v@example.com",
    subject: "s",
    preview: "p",
    content: { html: "<p>x</p>" },
    errorCode: null,
    errorMessage: null,
    attempts: 1,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

async function write(message: LogMessage) {
  const batch = logs.batch();
  batch.insert(message);
  await logs.write(batch);
  return message;
}

describe("message versions kept on the log row", () => {
  it("answers the row's workflowVersion and layoutVersion without its trigger's record", async () => {
    const { id, key } = await createSandboxEnvironment();
    // No trigger of this transaction was ever recorded: only the row can say its versions.
    const m = await write(logMessage(id, { workflowVersion: 7, layoutVersion: 3 }));
    const list = await api<{ data: Message[] }>(key, "GET", `/v1/messages?subscriberId=${m.subscriberId}`);
    expect(list.body.data).toMatchObject([{ id: m.id, workflowVersion: 7, layoutVersion: 3 }]);
    const detail = await api<MessageWithEvents>(key, "GET", `/v1/messages/${m.id}`);
    expect(detail.body).toMatchObject({ workflowVersion: 7, layoutVersion: 3 });
  });

  it("reads an older row's workflowVersion from its trigger, and its layoutVersion as null", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key);
    const transactionId = await triggerDelivered(key, {
      workflow: workflow.key,
      to: { subscriberId: unique("s"), email: "a@example.com" },
    });
    await deliveredMessages(key, transactionId, 1);
    const m = await write(logMessage(id, { transactionId }));
    const list = await api<{ data: Message[] }>(key, "GET", `/v1/messages?subscriberId=${m.subscriberId}`);
    expect(list.body.data).toMatchObject([{ id: m.id, workflowVersion: 1, layoutVersion: null }]);
    expect((await api<MessageWithEvents>(key, "GET", `/v1/messages/${m.id}`)).body).toMatchObject({
      workflowVersion: 1,
      layoutVersion: null,
    });
  });

  it("delivery writes the trigger's workflowVersion on the row", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key);
    const transactionId = await triggerDelivered(key, {
      workflow: workflow.key,
      to: { subscriberId: unique("s"), email: "a@example.com" },
    });
    const [sent] = await deliveredMessages(key, transactionId, 1);
    const [found] = await logs.find(id, [sent!.id]);
    expect(found?.message).toMatchObject({ workflowVersion: 1, layoutVersion: null });
  });

  it("adds the columns to a shard whose messages table predates them, its old rows reading null", async () => {
    const stub = env.LOGS.get(env.LOGS.idFromName(unique("old-shard")));
    await runInDurableObject(stub, (_shard: LogShard, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE messages");
      sql.exec(`CREATE TABLE messages (
        id TEXT PRIMARY KEY, env TEXT NOT NULL, tx TEXT NOT NULL, subscriber TEXT NOT NULL, workflow TEXT NOT NULL,
        step TEXT NOT NULL, channel TEXT NOT NULL, provider TEXT, integration TEXT, status TEXT NOT NULL,
        provider_message_id TEXT, "to" TEXT, subject TEXT, preview TEXT, content TEXT, error_code TEXT, error_message TEXT,
        attempts INTEGER NOT NULL DEFAULT 0, states INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
      ) WITHOUT ROWID`);
      sql.exec(
        "INSERT INTO messages (id, env, tx, subscriber, workflow, step, channel, status, created_at, updated_at) VALUES ('old', 'e', 't', 's', 'w', 'm', 'email', 'sent', 1, 1)",
      );
      addMissingColumns(sql);
      addMissingColumns(sql); // a second constructor finds them there
      const columns = sql
        .exec<{ name: string }>("PRAGMA table_info(messages)")
        .toArray()
        .map((c) => c.name);
      expect(columns).toEqual(expect.arrayContaining(["workflow_version", "layout_version"]));
      expect(sql.exec("SELECT workflow_version, layout_version FROM messages WHERE id = 'old'").toArray()).toEqual([
        { workflow_version: null, layout_version: null },
      ]);
    });
  });
});
