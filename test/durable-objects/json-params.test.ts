// Lists bound as one JSON parameter (`… FROM json_each(?)`) go in parts under a Durable Object's
// 2 MB per string (lib/json-parts.ts). The local runtime does not enforce that limit, so these tests
// run the objects' code over a SQLite that refuses any string longer than a small bound, with the
// parts made that small, and check that every row and answer is what one part gives.
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { RecipientsJob } from "../../src/jobs/job";
import { CLAIM_DEADLINE_MS, type ClaimReport, type SentReport } from "../../src/durable-objects/ledger/claims";
import { DeliveryState } from "../../src/durable-objects/ledger/delivery-state";
import type { LedgerParts } from "../../src/durable-objects/ledger/parts";
import { finish } from "../../src/durable-objects/ledger/progress";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { TriggersTable } from "../../src/durable-objects/ledger/triggers-table";
import { D1Outbox } from "../../src/durable-objects/log/d1-outbox";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import type { LogEvent, LogMessage } from "../../src/durable-objects/log/rows";
import type { LogTrigger } from "../../src/durable-objects/log/triggers-table";
import { JSON_PART_CHARS, jsonPartBound } from "../../src/lib/json-parts";
import { unique } from "../factories";
import { ledgerOf } from "../ledger";
import { logMessage } from "../log";

/** The longest string the SQLite below takes: a few rows of each list, so every list here needs several parts. */
const BOUND = 1_200;

/**
 * The object's SQLite as a Durable Object's on Cloudflare, with `max` for its 2 MB: a longer string
 * parameter is refused. Set on this one object's SqlStorage for the run, so the object's own code
 * (its tables hold the same SqlStorage) meets it; answers how to put it back.
 */
function refuseLonger(sql: SqlStorage, max: number): () => void {
  if (max === Number.POSITIVE_INFINITY) return () => {};
  const exec = sql.exec;
  sql.exec = ((query: string, ...params: SqlStorageValue[]) => {
    const long = params.find((p) => typeof p === "string" && p.length > max);
    if (typeof long === "string") throw new Error(`string or blob too big (${long.length} > ${max}): ${query.slice(0, 80)}`);
    return exec.call(sql, query, ...params);
  }) as SqlStorage["exec"];
  return () => {
    delete (sql as Partial<SqlStorage>).exec;
    if (sql.exec !== exec) sql.exec = exec;
  };
}

/** Each scenario runs twice: as deployed (one part), and in parts of at most `BOUND` over SQLite that enforces it. */
const modes = [
  { name: "one part", chars: JSON_PART_CHARS, max: Number.POSITIVE_INFINITY },
  { name: "parts", chars: BOUND, max: BOUND },
] as const;

afterEach(() => {
  jsonPartBound.chars = JSON_PART_CHARS;
});

/** Answers with the environment's id put back to `to`: two runs, two environments, one expectation. */
const asIf = (value: unknown, from: string, to: string): unknown => JSON.parse(JSON.stringify(value).replaceAll(from, to));

const sortedEntries = <V>(map: Map<string, V>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe("the ledger's lists, in parts", () => {
  const N = 400;
  const now = Date.now();

  async function ledgerRun(mode: (typeof modes)[number], environmentId: string) {
    jsonPartBound.chars = mode.chars;
    const tx = "tx-main";
    const txs = Array.from({ length: N }, (_, i) => `tx-${String(i).padStart(3, "0")}`);
    const keys = txs.map((transactionId) => ({ environmentId, transactionId }));
    return runInDurableObject(ledgerOf(environmentId, tx), async (_ledger: TriggerLedger, state) => {
      const sql = state.storage.sql;
      for (const [i, t] of txs.entries())
        state.storage.sql.exec(
          "INSERT INTO triggers (env, tx, fingerprint, state, record, accepted_at, check_at, hold_until) VALUES (?, ?, ?, 'accepted', '{}', ?, ?, ?)",
          environmentId,
          t,
          `fp-${i}`,
          now,
          now - i,
          i % 2 ? now + 5_000 : null,
        );
      const restore = refuseLonger(sql, mode.max);
      try {
        const triggers = new TriggersTable(sql);
        const progress = sortedEntries(triggers.progressOf(keys));
        const records = sortedEntries(triggers.recordsOf(keys));
        const fingerprints = sortedEntries(triggers.fingerprintsOf(keys));
        triggers.progressed(
          txs.map((t) => ({ env: environmentId, tx: t })),
          now + 1_000,
        );
        const checks = state.storage.sql
          .exec<{ tx: string; check_at: number }>("SELECT tx, check_at FROM triggers WHERE env = ? ORDER BY tx", environmentId)
          .toArray();

        const delivery = new DeliveryState(sql);
        const ids = Array.from({ length: N }, (_, i) => `subscriber-${String(i).padStart(3, "0")}\u0000mail`);
        // Half the keys claimed long ago by a consumer that died, so the claim below reads them back.
        delivery.claim(environmentId, tx, ids.slice(0, N / 2), [], false, now - CLAIM_DEADLINE_MS - 1);
        const claimed = delivery.claim(
          environmentId,
          tx,
          ids,
          ids.map((k) => `${k}-final`),
          false,
          now,
        );
        const sent: SentReport = { providerMessageId: "p", provider: "sandbox", integrationId: "i", to: "a@example.com", attempts: 1 };
        const reports: ClaimReport[] = ids.map((key, i) =>
          i % 3 === 0 ? { key, outcome: "retry" } : { key, outcome: "sent", report: sent },
        );
        delivery.report(environmentId, tx, reports, now);
        const claims = state.storage.sql
          .exec("SELECT key, state, at, report FROM claims WHERE env = ? ORDER BY key", environmentId)
          .toArray();
        const subscribers = ids.map((k) => k.split("\u0000")[0]!);
        delivery.markDone(environmentId, tx, 0, [...subscribers, subscribers[0]!]);
        delivery.markDone(environmentId, tx, 1, subscribers.slice(0, 10));
        const doneCount = delivery.doneCount(environmentId, tx);
        const doneCounts = sortedEntries(delivery.doneCounts([...keys, { environmentId, transactionId: tx }]));
        const job = (i: number): RecipientsJob => ({
          v: 1,
          type: "recipients",
          environmentId,
          transactionId: tx,
          chunk: i,
          subscriberIds: [subscribers[i]!],
        });
        delivery.park(
          environmentId,
          tx,
          subscribers.map((_, i) => ({ fireAt: now + i, job: job(i), hold: { kind: "delay", stepId: `wait-${i}` } })),
        );
        const waits = state.storage.sql.exec("SELECT id, fire_at, job, hold FROM waits WHERE env = ? ORDER BY id", environmentId).toArray();
        const taken = delivery.takeWaits({ env: environmentId, tx });
        const released = state.storage.sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM waits WHERE env = ? AND released = 1", environmentId)
          .one().n;
        const recorded = delivery.runSteps.record(
          environmentId,
          tx,
          subscribers.map((subscriberId, i) => ({ subscriberId, stepId: "branch", outcome: { status: "ran", path: `p-${i}` } })),
          now,
        );
        const parts = { storage: state.storage, timings: { retentionMs: 60_000 } } as unknown as LedgerParts;
        await finish(
          parts,
          keys.map((k, i) => ({ ...k, state: i % 2 ? ("completed" as const) : ("failed" as const) })),
          now,
        );
        const finished = state.storage.sql
          .exec("SELECT tx, state, finished_at FROM triggers WHERE env = ? ORDER BY tx", environmentId)
          .toArray();
        await state.storage.deleteAlarm();
        return {
          progress,
          records,
          fingerprints,
          checks,
          claimed,
          claims,
          doneCount,
          doneCounts,
          waits: waits.map(({ id: _id, ...w }) => w),
          taken,
          released,
          recorded,
          finished,
        };
      } finally {
        restore();
      }
    });
  }

  it("reads and writes every row as one part does", async () => {
    const [one, parted] = [unique("env-one"), unique("env-parts")];
    const expected = await ledgerRun(modes[0], one);
    const got = await ledgerRun(modes[1], parted);
    expect(got.progress).toHaveLength(N);
    expect(got.claimed.granted).toHaveLength(N);
    expect(got.doneCount).toBe(N + 10);
    expect(got.released).toBe(N);
    expect(asIf(got, parted, one)).toEqual(expected);
  });
});

describe("a log shard's lists, in parts", () => {
  const N = 120;
  /** Long ids, so lists of ids need parts too. */
  const pad = "-".repeat(30);
  // Half an hour into the last hour: both runs count in the same rollup hours.
  const at = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 1_800_000;

  async function logRun(mode: (typeof modes)[number], environmentId: string) {
    jsonPartBound.chars = mode.chars;
    const name = unique("log-json-params");
    const messages: LogMessage[] = Array.from({ length: N }, (_, i) =>
      logMessage({
        id: `msg-${environmentId}-${String(i).padStart(3, "0")}${pad}`,
        environmentId,
        subscriberId: `s${i % 4}`,
        transactionId: `tx-${i}${pad}`,
        // Distinct rollup rows, so the rollups' own lists need parts too.
        workflowKey: `wf-${i}`,
        stepId: `mail-${Math.floor(i / 20)}`,
        status: "sending",
        createdAt: at + i,
      }),
    );
    const events = (status: LogEvent["status"], offset: number): LogEvent[] =>
      messages.map((m, i) => ({
        id: `evt-${status}-${m.id}`,
        environmentId,
        messageId: m.id,
        status,
        at: at + offset + i,
        detail: { attempt: 1 },
      }));
    const triggers: LogTrigger[] = Array.from({ length: N }, (_, i) => ({
      environmentId,
      transactionId: `tx-${i}${pad}`,
      // Each counted in its own rollup row: the triggers counted as new are these, not others.
      workflowKey: `wf-t${i}`,
      status: "processing",
      // Some name s1 (trigger_people), the others are erased by the list alone.
      recipients: i % 3 ? [`s${i % 4}`] : [{ subscriberId: "s1", email: "s1@example.com" }, `s${i % 4}`],
      payload: {},
      overrides: null,
      actor: null,
      acceptedAt: at + (i % 7),
      cancelledMessages: null,
      workflowVersion: 1,
      createdAt: at,
      updatedAt: at,
    }));
    const stub = env.LOGS.get(env.LOGS.idFromName(name));
    return runInDurableObject(stub, async (shard: LogShard, state) => {
      const restore = refuseLonger(state.storage.sql, mode.max);
      try {
        const first = await shard.write(name, {
          inserts: messages,
          events: events("sending", 10),
          refs: messages.map((m) => ({ providerMessageId: `p-${m.id}`, environmentId, messageId: m.id })),
          indexed: messages.map((m) => ({
            environmentId,
            transactionId: m.transactionId,
            subscriberId: m.subscriberId,
            stepId: m.stepId,
            messageId: m.id,
            status: "sending",
            createdAt: m.createdAt,
          })),
        });
        // Timeline entries alone reach their states (no change to the row); their index moves with them.
        const second = await shard.write(name, {
          events: events("sent", 20),
          indexedStatus: messages.map((m) => ({ environmentId, transactionId: m.transactionId, messageId: m.id, status: "sent" })),
        });
        // Subscriber s3 is erased; a late write of their messages is redacted as it lands.
        await shard.eraseSubscriber(environmentId, "s3");
        const late = messages.filter((m) => m.subscriberId === "s3").map((m, i) => ({ ...m, id: `${m.id}-late`, stepId: `late-${i}` }));
        await shard.write(name, {
          inserts: late,
          events: late.map((m) => ({ ...events("sent", 30)[0]!, id: `evt-${m.id}`, messageId: m.id })),
        });
        // Without the rollups, a write describes what it touched by reading it.
        const settings = shard as unknown as { env: typeof env };
        settings.env = { ...env, ANALYTICS_ROLLUPS: "off" };
        const described = await shard.write(name, { events: events("delivered", 40) }).finally(() => {
          settings.env = env;
        });
        const ofRecipients = await shard.ofRecipients(
          environmentId,
          messages.map((m) => [m.transactionId, m.subscriberId]),
        );

        const fresh = await shard.writeTriggers(name, [...triggers, triggers[0]!]);
        const keys = triggers.map((t) => ({ environmentId, transactionId: t.transactionId }));
        const finished = await shard.finishTriggers(keys, "completed", at + 100);
        const found = await shard.findTriggers(
          environmentId,
          triggers.map((t) => t.transactionId),
        );
        const listed = await shard.listTriggers({
          environmentId,
          transactionIds: triggers.map((t) => t.transactionId),
          limit: 25,
        });
        const erased = await shard.eraseTriggerSubject(
          environmentId,
          "s1",
          triggers.map((t) => t.transactionId),
        );
        const dump = (query: string) => state.storage.sql.exec(query, environmentId).toArray();
        const tables = {
          messages: dump("SELECT * FROM messages WHERE env = ? ORDER BY id"),
          events: dump("SELECT * FROM message_events WHERE env = ? ORDER BY id"),
          refs: dump("SELECT provider_message_id, message_id FROM provider_refs WHERE env = ? ORDER BY 1"),
          index: dump("SELECT * FROM trigger_messages WHERE env = ? ORDER BY message_id"),
          triggers: dump("SELECT * FROM triggers WHERE env = ? ORDER BY tx"),
          rollupMessages: dump("SELECT * FROM rollup_messages WHERE env = ? ORDER BY workflow, step, states, reason"),
          rollupLatency: dump("SELECT * FROM rollup_latency WHERE env = ? ORDER BY workflow, bucket"),
          rollupAudience: dump("SELECT * FROM rollup_audience WHERE env = ? ORDER BY workflow"),
          rollupFatigue: dump(
            // An erased subscriber's counts move under a random name.
            "SELECT day, channel, workflow, tenant, n, iif(subscriber LIKE 'erased:%', 'erased', subscriber) AS s FROM rollup_fatigue WHERE env = ? ORDER BY s, workflow",
          ),
        };
        await state.storage.deleteAlarm();
        return {
          first,
          second,
          described,
          ofRecipients,
          fresh: fresh.length,
          finished,
          found: found.map((t) => t.transactionId).sort(),
          listed: listed.map((t) => t.transactionId),
          erased,
          tables,
        };
      } finally {
        restore();
      }
    });
  }

  it("stores every row and answers every read as one part does", async () => {
    const [one, parted] = [unique("env-one"), unique("env-parts")];
    const expected = await logRun(modes[0], one);
    const got = await logRun(modes[1], parted);
    expect(got.tables.events.length).toBe(3 * N + N / 4);
    expect(got.ofRecipients.length).toBeGreaterThanOrEqual(N);
    expect(got.listed).toHaveLength(25);
    expect(got.tables.messages.filter((m) => m.subscriber === "s3").every((m) => m.content === null)).toBe(true);
    expect(asIf(got, parted, one)).toEqual(expected);
  });
});

describe("a log shard's D1 half, in parts", () => {
  it("keeps a half past one part in rows that the writer settles together and the alarm runs in order", async () => {
    jsonPartBound.chars = BOUND;
    const name = unique("log-json-outbox");
    const probe = `json_params_${crypto.randomUUID().replaceAll("-", "")}`;
    const keys = Array.from({ length: 60 }, (_, i) => `key-${String(i).padStart(3, "0")}-${"x".repeat(30)}`);
    const statements = [
      { sql: `CREATE TABLE IF NOT EXISTS ${probe} (k TEXT PRIMARY KEY, n INTEGER NOT NULL)`, params: [] },
      ...keys.map((k, i) => ({ sql: `INSERT INTO ${probe} (k, n) VALUES (?, ?) ON CONFLICT DO NOTHING`, params: [k, i] })),
    ];
    const stub = env.LOGS.get(env.LOGS.idFromName(name));
    const result = await runInDurableObject(stub, async (shard: LogShard, state) => {
      const restore = refuseLonger(state.storage.sql, BOUND);
      try {
        const rows = () => state.storage.sql.exec<{ id: string }>("SELECT id FROM d1_outbox ORDER BY created_at, id").toArray();
        const settled = await shard.write(name, { outbox: { statements, facts: [] } });
        const kept = await shard.write(name, { outbox: { statements, facts: [] } });
        const stored = rows().map((r) => r.id);
        await shard.settle([settled.outbox!]);
        const left = rows().map((r) => r.id);
        const sent = await new D1Outbox(state.storage.sql).send(env.DB);
        await state.storage.deleteAlarm();
        return { settled: settled.outbox!, kept: kept.outbox!, stored, left, sent, pending: rows().length };
      } finally {
        restore();
      }
    });
    const ofEntry = (id: string) => result.stored.filter((r) => r === id || r.startsWith(`${id}/`));
    expect(ofEntry(result.settled).length).toBeGreaterThan(2);
    expect(result.left).toEqual(ofEntry(result.kept));
    expect(result.sent).toEqual({ sent: result.left.length, refused: 0 });
    expect(result.pending).toBe(0);
    const { results } = await env.DB.prepare(`SELECT k, n FROM ${probe} ORDER BY n`).all<{ k: string; n: number }>();
    await env.DB.prepare(`DROP TABLE ${probe}`).run();
    expect(results).toEqual(keys.map((k, n) => ({ k, n })));
  });
});
