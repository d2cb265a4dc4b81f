// A log shard's write answers, for the writer's outbound events, each touched message as the
// write left it. A phase whose environments take no message events (no enabled endpoint) reads
// none of it back, so the shards leave it out; a phase whose environment takes them gets it, and
// its events still describe the messages.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import type { LogWrite } from "../../src/durable-objects/log/rows";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { createSandboxEnvironment, createWorkflow, fakeProviderScenario, unique } from "../factories";
import { acceptThenCrash, startTriggers } from "../ledger";
import { interceptedLogs, logEvent, logMessage } from "../log";
import { api } from "../request";

/** Delivers one trigger of a one-step email workflow, answering the rows each log shard write was sent. */
async function deliverWatchingWrites(environmentId: string, key: string): Promise<{ transactionId: string; writes: LogWrite[] }> {
  const workflow = unique("described");
  await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } }] });
  const accepted = await acceptThenCrash(
    environmentId,
    workflow,
    { subscriberId: unique("s"), email: "ada@example.com" },
    { loseJob: true },
  );
  const writes: LogWrite[] = [];
  const LOGS = interceptedLogs((key, stub) =>
    key === "writeJson"
      ? (name: string, rows: string, outbox: LogWrite["outbox"]) => {
          writes.push(JSON.parse(rows) as LogWrite);
          return stub.writeJson(name, rows, outbox);
        }
      : undefined,
  );
  await startTriggers(environmentId, [accepted.transactionId], { ...env, LOGS });
  return { transactionId: accepted.transactionId, writes: writes.filter((w) => (w.inserts ?? []).length > 0) };
}

async function sentEvents(environmentId: string, transactionId: string) {
  const { results } = await env.DB.prepare(
    "SELECT data FROM events WHERE environment_id = ? AND type = 'message.sent' AND json_extract(data, '$.transactionId') = ?",
  )
    .bind(environmentId, transactionId)
    .all<{ data: string }>();
  return results.map((r) => JSON.parse(r.data) as Record<string, unknown>);
}

describe("the log write's descriptions of its messages", () => {
  it("are left out by the shard when the writer asks for none, but not for its outbox's facts", async () => {
    const environmentId = unique("env");
    const at = Date.now();
    const [a, b] = ["ann", "bob"].map((subscriberId) =>
      logMessage({ environmentId, subscriberId, createdAt: at, transactionId: unique("tx") }),
    );
    const name = unique("descriptions");
    const shard = env.LOGS.get(env.LOGS.idFromName(name));
    const answered = await runInDurableObject(shard, async (o: LogShard) => {
      const quiet = await o.write(name, { inserts: [a!], events: [logEvent(a!, "sent", at)], describe: false });
      const asked = await o.write(name, { inserts: [b!], events: [logEvent(b!, "sent", at)] });
      return { quiet: quiet.described.map((d) => d.id), asked: asked.described.map((d) => d.id) };
    });
    expect(answered.quiet).toEqual([]);
    expect(answered.asked).toEqual([b!.id]);
  });

  it("are not asked for by a phase whose environment has no webhook endpoint", async () => {
    const { id, key } = await createSandboxEnvironment();
    const { transactionId, writes } = await deliverWatchingWrites(id, key);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((w) => w.describe === false)).toBe(true);
    expect(await sentEvents(id, transactionId)).toEqual([]);
  });

  it("are asked for, and describe the message.sent event, where an endpoint takes events", async () => {
    const { id, key } = await createSandboxEnvironment();
    const receiver = fakeProviderScenario();
    const endpoint = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/events` });
    expect(endpoint.status).toBe(201);
    const { transactionId, writes } = await deliverWatchingWrites(id, key);
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.some((w) => w.describe === false)).toBe(false);
    const [sent, ...more] = await sentEvents(id, transactionId);
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ transactionId, channel: "email", provider: "sandbox-email" });
  });
});
