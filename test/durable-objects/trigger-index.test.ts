// A trigger's messages counted from its own shard's index (trigger-index.ts): one LogShard call,
// the same answer as counting every shard.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { recordTriggers } from "../../src/delivery/writes/trigger-writes";
import { allLogShards, logShardFor, subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore, type LogMessage } from "../../src/durable-objects/client/log-store";
import { newLogId } from "../../src/lib/ids";
import { unique } from "../factories";

/** A LogStore whose shard calls are named in `calls`: the objects a read touched. */
function countingStore(calls: string[]): LogStore {
  const logs = env.LOGS;
  const counted = {
    idFromName: (name: string) => {
      calls.push(name);
      return logs.idFromName(name);
    },
    get: (id: DurableObjectId) => logs.get(id),
  };
  return new LogStore({ ...env, LOGS: counted as unknown as typeof env.LOGS });
}

const message = (environmentId: string, transactionId: string, subscriberId: string, status: string, at: number): LogMessage =>
  ({
    id: newLogId("msg", subscriberPartition(environmentId, subscriberId)),
    environmentId,
    transactionId,
    subscriberId,
    workflowKey: "wf",
    stepId: "mail",
    channel: "email",
    provider: null,
    integrationId: null,
    status,
    providerMessageId: null,
    to: null,
    subject: null,
    preview: null,
    content: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    workflowVersion: 1,
    layoutVersion: null,
    createdAt: at,
    updatedAt: at,
  }) as LogMessage;

/** What the counts were before the index: every shard asked for its own messages of the trigger. */
async function countedEverywhere(environmentId: string, transactionId: string): Promise<Record<string, number>> {
  const byStatus: Record<string, number> = {};
  for (const name of allLogShards(env)) {
    const rows = await env.LOGS.get(env.LOGS.idFromName(name)).counts(environmentId, transactionId);
    for (const { status, n } of rows) byStatus[status] = (byStatus[status] ?? 0) + n;
  }
  return byStatus;
}

const record = (environmentId: string, transactionId: string) => ({
  environmentId,
  transactionId,
  workflowKey: "wf",
  workflowVersion: 1,
  recipients: [],
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt: Date.now(),
});

describe("a trigger's message counts", () => {
  it("come from the trigger's shard alone and match the counts of every shard, as statuses change", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    await recordTriggers(new LogStore(env), [{ record: record(environmentId, transactionId), status: "processing" }]);
    const now = Date.now();
    // Forty recipients: their messages sit in (nearly) every shard.
    const messages = Array.from({ length: 40 }, (_, n) => message(environmentId, transactionId, `sub-${n}`, "sending", now + n));
    const store = new LogStore(env);
    const inserts = store.batch();
    for (const m of messages) inserts.insert(m);
    await store.write(inserts);
    expect(new Set(messages.map((m) => logShardFor(env, subscriberPartition(environmentId, m.subscriberId)))).size).toBeGreaterThan(8);

    const results = store.batch();
    messages.forEach((m, n) => {
      if (n % 4 !== 3) results.update(m.id, { status: n % 4 === 0 ? "failed" : "sent", updatedAt: now + 100 }, m);
    });
    // An identity stored again under another id is not a second message, here as in its shard.
    results.insert({ ...messages[0]!, id: newLogId("msg", subscriberPartition(environmentId, "sub-0")), status: "sent" });
    await store.write(results);

    const calls: string[] = [];
    const counts = Object.fromEntries(await countingStore(calls).counts(environmentId, transactionId));
    expect(calls).toHaveLength(1);
    expect(counts).toEqual({ failed: 10, sent: 20, sending: 10 });
    expect(counts).toEqual(await countedEverywhere(environmentId, transactionId));
  });

  it("are zero from one shard for a recorded trigger without messages yet", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    await recordTriggers(new LogStore(env), [{ record: record(environmentId, transactionId), status: "processing" }]);
    const calls: string[] = [];
    expect((await countingStore(calls).counts(environmentId, transactionId)).size).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it("are counted over every shard for a trigger the index does not know (written before it was kept)", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const m = message(environmentId, transactionId, "ada", "sent", Date.now());
    // As a shard that predates the index holds it: the message without its index row.
    await env.LOGS.get(env.LOGS.idFromName(logShardFor(env, subscriberPartition(environmentId, "ada")))).write("legacy", {
      inserts: [m],
    });
    const calls: string[] = [];
    expect(Object.fromEntries(await countingStore(calls).counts(environmentId, transactionId))).toEqual({ sent: 1 });
    expect(calls.length).toBe(1 + allLogShards(env).length);
  });
});
