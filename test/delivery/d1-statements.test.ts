import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVENT_TAKEN_TTL_MS, forgetEventsTaken, noEndpointsNow, noEndpointsStands } from "../../src/db/queries/fact-events";
import { triggerJob } from "../../src/jobs/job";
import worker from "../../src/index";
import { createSandboxEnvironment, createWorkflow, fakeProviderScenario, unique } from "../factories";
import { acceptThenCrash } from "../ledger";
import { interceptedLogs, loggedMessages } from "../log";
import { api } from "../request";

/**
 * The Worker's bindings with D1 counted as bench/d1-counter/worker.ts counts it: one per statement
 * run alone or in a batch. D1's single writer caps a deployment by statements, so this is the
 * cost that must not grow with the triggers of a batch.
 */
function countingEnv() {
  const counted = { statements: 0, eventInserts: 0, recipientReads: 0, logWrites: 0 };
  const texts = new WeakMap<D1PreparedStatement, string>();
  const count = (statement: D1PreparedStatement) => {
    counted.statements++;
    if (texts.get(statement)?.startsWith('insert into "events"')) counted.eventInserts++;
    // recipientRowsRead (src/db/queries/recipient-reads.ts): one per wave of chunks.
    if (texts.get(statement)?.startsWith("select wf.workflows as workflows")) counted.recipientReads++;
  };
  const wrap = (statement: D1PreparedStatement, text: string): D1PreparedStatement => {
    texts.set(statement, text);
    const target = statement as unknown as Record<string, unknown>;
    for (const name of ["run", "all", "first", "raw"] as const) {
      const own = statement[name].bind(statement) as (...args: unknown[]) => unknown;
      target[name] = (...args: unknown[]) => {
        count(statement);
        return own(...args);
      };
    }
    const bind = statement.bind.bind(statement);
    target.bind = (...values: unknown[]) => wrap(bind(...values), text);
    return statement;
  };
  const DB = new Proxy(env.DB, {
    get(db, key) {
      if (key === "prepare") return (text: string) => wrap(db.prepare(text), text);
      if (key === "batch")
        return (list: D1PreparedStatement[]) => {
          for (const statement of list) count(statement);
          return db.batch(list);
        };
      const value = Reflect.get(db, key);
      return typeof value === "function" ? value.bind(db) : value;
    },
  });
  // The log shards' writes: a wave of chunks writes each shard it touches once (the group commit of its phase).
  const LOGS = interceptedLogs((key) => {
    if (key === "writeJson") counted.logWrites++;
  });
  return { bindings: { ...env, DB, LOGS }, counted };
}

const TRIGGERS = 100;

/** Single-recipient triggers (inline subscribers, one sandbox email) accepted and run by ONE consumer batch: its D1 statements. */
async function oneBatch(environmentId: string, workflowKey: string, triggers = TRIGGERS) {
  const accepted = [];
  for (let i = 0; i < triggers; i++)
    accepted.push(
      await acceptThenCrash(environmentId, workflowKey, { subscriberId: unique("d1s"), email: `d1s${i}@example.com` }, { loseJob: true }),
    );
  const batch = createMessageBatch(
    "clarion-delivery-0",
    accepted.map((t, i) => ({
      id: `m-${i}`,
      timestamp: new Date(),
      attempts: 1,
      body: { ...triggerJob(environmentId, t.transactionId), ledger: t.ledger },
    })),
  );
  const { bindings, counted } = countingEnv();
  await worker.queue(batch, bindings);
  const result = await getQueueResult(batch, createExecutionContext());
  expect(result.retryMessages).toEqual([]);
  expect(result.explicitAcks).toHaveLength(triggers);
  const sent = new Set((await loggedMessages(environmentId, { status: "sent" })).map((m) => m.transactionId));
  expect(accepted.filter((t) => sent.has(t.transactionId))).toHaveLength(triggers);
  return counted;
}

const EMAIL = [{ id: "mail", type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "Counted." } }];

describe("D1 statements of a consumer batch", () => {
  // Measured: 8 in a cold isolate and environment (the inline subscribers' upsert, the environment's settings, its first link
  // secret, the workflow version, the recipients with their channels and suppressions, the sandbox captures, whether an endpoint
  // takes trigger.completed) and 5 once warm; the code before this test sent 23. Two more each are left for phases that split in two under load.
  it("stays a handful for 100 single-recipient triggers, whatever their number, and fewer once the isolate is warm", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "counted", steps: EMAIL });
    const cold = await oneBatch(id, "counted");
    expect(cold.statements).toBeLessThanOrEqual(10);
    // No endpoint: no message-events statement, which would insert nothing.
    expect(cold.eventInserts).toBe(0);
    // The workflow version is kept by the isolate, the link secret minted.
    const warm = await oneBatch(id, "counted");
    expect(warm.statements).toBeLessThan(cold.statements);
    expect(warm.statements).toBeLessThanOrEqual(7);
  });

  // Until 0.13 chunks ran 100 at a time: 250 triggers were 3 waves, each with its recipients' read and a write to every log
  // shard (up to 48 writes here). Now they run together while their recipients fit RECIPIENTS_IN_FLIGHT (consumer.ts), and
  // their writes wait for each other (write-quorum.ts: without it, 26 writes to 16 shards).
  it("runs 250 one-recipient triggers as one wave: one recipients' read and one write per log shard", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "waves", steps: EMAIL });
    const more = await oneBatch(id, "waves", 250);
    expect(more.recipientReads).toBe(1);
    expect(more.logWrites).toBeGreaterThan(0);
    expect(more.logWrites).toBeLessThanOrEqual(Number(env.LOG_SHARDS ?? 16));
  });

  it("still writes every message event while the environment has an enabled endpoint", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "watched", steps: EMAIL });
    const receiver = fakeProviderScenario();
    expect((await api(key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/events`, events: ["message.sent"] })).status).toBe(
      201,
    );
    expect((await oneBatch(id, "watched")).eventInserts).toBeGreaterThan(0);
    const events = await env.DB.prepare("SELECT count(*) AS n FROM events WHERE environment_id = ? AND type = 'message.sent'")
      .bind(id)
      .first<{ n: number }>();
    expect(events?.n).toBe(TRIGGERS);
  });
});

describe("a read that found no enabled endpoint", () => {
  it("lets phases skip their message events for EVENT_TAKEN_TTL_MS, and not after an endpoint change in this isolate", () => {
    const now = 1_800_000_000_000;
    const read = noEndpointsNow(now);
    expect(noEndpointsStands(read, now + EVENT_TAKEN_TTL_MS - 1)).toBe(true);
    expect(noEndpointsStands(read, now + EVENT_TAKEN_TTL_MS)).toBe(false);
    expect(noEndpointsStands(null, now)).toBe(false);
    forgetEventsTaken(`env_${unique("other")}`);
    expect(noEndpointsStands(read, now + 1)).toBe(false);
  });
});
