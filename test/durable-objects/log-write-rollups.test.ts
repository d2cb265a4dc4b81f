// A log shard's write keeps its rollups equal to counting its rows, whatever the write holds:
// new messages, a retried write, a send identity inserted again under another id, changes and
// timeline entries to stored messages, a message inserted and changed in one write, endings with
// a reason (an error code, or only the timeline's), and text with a NUL and surrogates.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { maskOf, REASONED_STATUSES } from "../../src/contract/message-figures";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import { bitOf, RECIPIENTS_MESSAGES } from "../../src/durable-objects/log/records";
import { LATENCY_ADD, RECIPIENTS_ADD } from "../../src/durable-objects/log/rollups/counting";
import { LATENCY_BUCKETS_MS } from "../../src/durable-objects/log/rollups/rows";
import { addMissingColumns } from "../../src/durable-objects/log/schema";
import type { LogMessage, LogWrite, MessageChanges } from "../../src/durable-objects/log/rows";
import { newId } from "../../src/lib/ids";
import { unique } from "../factories";
import { logEvent as event, logMessage } from "../log";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const REASONED = maskOf(REASONED_STATUSES);
const ENDINGS: readonly string[] = REASONED_STATUSES;

type Row = Record<string, SqlStorageValue>;

const message = (environmentId: string, tx: string, subscriberId: string, stepId: string, at: number, over: Partial<LogMessage> = {}) =>
  logMessage({
    environmentId,
    transactionId: tx,
    subscriberId,
    stepId,
    createdAt: at,
    provider: null,
    status: "sending",
    attempts: 0,
    ...over,
  });

/** The query plan's lines of a statement in a fresh shard named `name`. */
const planIn = (name: string, statement: string, ...params: SqlStorageValue[]) =>
  runInDurableObject(env.LOGS.get(env.LOGS.idFromName(name)), (_o: LogShard, state) =>
    state.storage.sql
      .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`, ...params)
      .toArray()
      .map((r) => r.detail),
  );

const key = (r: Record<string, unknown>) => JSON.stringify(r, Object.keys(r).sort());

/** The rollups as stored, and as counting the shard's message rows and timelines gives them. */
async function rollupsAndCounts(shard: DurableObjectStub<LogShard>) {
  return runInDurableObject(shard, (_o: LogShard, state) => {
    const sql = state.storage.sql;
    const rows = (q: string) => sql.exec<Row>(q).toArray();
    const messages = rows("SELECT * FROM messages");
    const events = rows("SELECT * FROM message_events ORDER BY at, id");
    const stored = {
      messages: rows("SELECT env, hour, workflow, step, channel, provider, tenant, states, reason, n FROM rollup_messages").map(key).sort(),
      recipients: rows("SELECT env, hour, workflow, tenant, recipients AS n FROM rollup_audience WHERE recipients > 0").map(key).sort(),
      fatigue: rows("SELECT env, day, subscriber, channel, workflow, tenant, n FROM rollup_fatigue").map(key).sort(),
      latency: rows("SELECT env, hour, channel, provider, tenant, workflow, bucket, n FROM rollup_latency").map(key).sort(),
      errors: rows("SELECT env, day, workflow, channel, code, n FROM rollup_errors").map(key).sort(),
    };
    const tally = (list: Record<string, unknown>[]) => {
      const n = new Map<string, number>();
      for (const r of list) n.set(key(r), (n.get(key(r)) ?? 0) + 1);
      return [...n].map(([k, count]) => key({ ...(JSON.parse(k) as Record<string, unknown>), n: count })).sort();
    };
    const reason = (m: Row) => {
      const states = Number(m.states);
      if ((states & REASONED) === 0) return "";
      const ending = events.filter((e) => e.message_id === m.id && ENDINGS.includes(String(e.status))).at(-1);
      const fromEvent = ending?.detail ? (JSON.parse(String(ending.detail)) as { reason?: string }).reason : undefined;
      return String(m.error_code ?? fromEvent ?? "");
    };
    const sentMask = maskOf(["sent", "delivered", "opened", "clicked", "bounced", "seen", "read", "archived"]);
    const failedMask = maskOf(["failed", "bounced", "undeliverable"]);
    const hour = (m: Row) => Math.floor(Number(m.created_at) / HOUR) * HOUR;
    const day = (m: Row) => Math.floor(Number(m.created_at) / DAY) * DAY;
    const recipients = new Map<string, Row>();
    // A recipient is counted where its first message was made.
    for (const m of messages) {
      const had = recipients.get(`${m.tx}\n${m.subscriber}`);
      if (!had || Number(m.created_at) < Number(had.created_at)) recipients.set(`${m.tx}\n${m.subscriber}`, m);
    }
    const sent = messages.filter((m) => Number(m.states) & sentMask);
    const counted = {
      messages: tally(
        messages.map((m) => ({
          env: m.env,
          hour: hour(m),
          workflow: m.workflow,
          step: m.step,
          channel: m.channel,
          provider: m.provider ?? "",
          tenant: m.tenant ?? "",
          states: m.states,
          reason: reason(m),
        })),
      ),
      recipients: tally([...recipients.values()].map((m) => ({ env: m.env, hour: hour(m), workflow: m.workflow, tenant: m.tenant ?? "" }))),
      fatigue: tally(
        sent.map((m) => ({
          env: m.env,
          day: day(m),
          subscriber: m.subscriber,
          channel: m.channel,
          workflow: m.workflow,
          tenant: m.tenant ?? "",
        })),
      ),
      latency: tally(
        sent.flatMap((m) => {
          // The last start to the last answer: the writes below add no entry to a sent message's timeline that would move its bucket.
          const last = (statuses: string[]) =>
            Math.max(...events.filter((e) => e.message_id === m.id && statuses.includes(String(e.status))).map((e) => Number(e.at)));
          const ms = Math.max(0, last(["sent", "delivered"]) - last(["sending"]));
          if (Number.isNaN(ms)) return [];
          const bucket = LATENCY_BUCKETS_MS.findIndex((le) => ms <= le);
          return [
            {
              env: m.env,
              hour: hour(m),
              channel: m.channel,
              provider: m.provider ?? "",
              tenant: m.tenant ?? "",
              workflow: m.workflow,
              bucket: bucket < 0 ? LATENCY_BUCKETS_MS.length : bucket,
            },
          ];
        }),
      ),
      errors: tally(
        messages
          .filter((m) => Number(m.states) & failedMask)
          .map((m) => ({ env: m.env, day: day(m), workflow: m.workflow, channel: m.channel, code: reason(m) || String(m.status) })),
      ),
    };
    return { stored, counted, messages: messages.length };
  });
}

describe("LogShard.write keeps the rollups equal to counting its rows", () => {
  it("through inserts, retries, a send identity inserted again, changes, endings with reasons", async () => {
    const name = unique("log-write-rollups");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const at = Date.now();
    const write = (w: LogWrite) => shard.write(name, w);
    const check = async (messages: number) => {
      const { stored, counted, messages: n } = await rollupsAndCounts(shard);
      expect(n).toBe(messages);
      expect(stored).toEqual(counted);
    };

    // A fan-out's first phase: new messages as `sending`, one with a tenant, one of an odd subscriber id.
    const a = message(environmentId, "tx-1", "ann", "mail", at);
    const b = message(environmentId, "tx-1", "bob", "mail", at, { tenantId: "acme" });
    const c = message(environmentId, "tx-1", "cy\u0000\uDC00x\uD83D\uDE00", "mail", at);
    const first: LogWrite = { inserts: [a, b, c] };
    expect((await write(first)).existing).toEqual([]);
    await check(3);

    // The same write again (a retried chunk): the same ids, nothing counted twice.
    expect((await write(first)).existing).toEqual([]);
    await check(3);

    // The same send identity under a new id: answers the stored one, counts nothing.
    const again = { ...a, id: newId("msg") };
    expect((await write({ inserts: [again] })).existing).toEqual([{ requested: again.id, id: a.id }]);
    await check(3);

    // The send's results: two sent (with their timelines), one failed with a code.
    const sent = (m: LogMessage) => ({
      id: m.id,
      changes: { status: "sent", provider: "ses", providerMessageId: `p-${m.id}`, updatedAt: at + 5 } as MessageChanges,
    });
    const results: LogWrite = {
      updates: [
        sent(a),
        sent(b),
        { id: c.id, changes: { status: "failed", errorCode: "E_BOUNCE", errorMessage: "no such user 42", updatedAt: at + 5 } },
      ],
      events: [
        event(a, "queued", at),
        event(a, "sending", at + 1),
        event(a, "sent", at + 3),
        event(b, "queued", at),
        event(b, "sending", at + 1),
        event(b, "sent", at + 4),
        event(c, "sending", at + 1),
        event(c, "failed", at + 2, { error: "E_BOUNCE" }),
      ],
    };
    const described = await write(results);
    expect(described.described.map((d) => d.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(described.described.find((d) => d.id === a.id)?.provider).toBe("ses");
    // Each message's states: its statuses' and its timeline's, as one statement per change and entry left them.
    const states = await runInDurableObject(shard, (_o: LogShard, state) =>
      Object.fromEntries(
        state.storage.sql
          .exec<{ id: string; states: number }>("SELECT id, states FROM messages")
          .toArray()
          .map((r) => [r.id, r.states]),
      ),
    );
    expect(states).toEqual({
      [a.id]: bitOf("sending") | bitOf("queued") | bitOf("sent"),
      [b.id]: bitOf("sending") | bitOf("queued") | bitOf("sent"),
      [c.id]: bitOf("sending") | bitOf("failed"),
    });
    await check(3);

    // Retried: the events are kept once, the states set again: nothing counted twice.
    await write(results);
    await check(3);

    // Later reports on a stored message: delivered, then opened and clicked.
    await write({ updates: [{ id: a.id, changes: { status: "delivered", updatedAt: at + 9 } }], events: [event(a, "delivered", at + 9)] });
    await write({ events: [event(a, "opened", at + 10), event(a, "clicked", at + 11)] });
    await check(3);

    // A message inserted and changed in one write, and one changed twice in one write (the later change wins).
    const d = message(environmentId, "tx-2", "ann", "mail", at + HOUR);
    await write({
      inserts: [d],
      updates: [{ id: d.id, changes: { status: "sent", provider: "ses", updatedAt: at + HOUR } }],
      events: [event(d, "sending", at + HOUR), event(d, "sent", at + HOUR + 1)],
    });
    await write({
      updates: [
        { id: d.id, changes: { status: "delivered", updatedAt: at + HOUR + 2 } },
        { id: d.id, changes: { status: "bounced", errorCode: "E_LATE", updatedAt: at + HOUR + 3 } },
      ],
      events: [event(d, "bounced", at + HOUR + 3)],
    });
    await check(4);

    // Endings without a send: a skip whose reason only its timeline gives, a cancel, in a new trigger.
    const e = message(environmentId, "tx-3", "ann", "mail", at, { status: "skipped" });
    const f = message(environmentId, "tx-3", "ann", "text", at, { status: "cancelled", channel: "sms" });
    await write({ inserts: [e, f], events: [event(e, "skipped", at, { reason: "preference" }), event(f, "cancelled", at)] });
    await check(6);

    // A change to a message this shard does not hold, and a timeline entry for one: nothing counted.
    await write({
      updates: [{ id: newId("msg"), changes: { status: "sent" } }],
      events: [event(message(environmentId, "tx-9", "zed", "mail", at), "sent", at)],
    });
    await check(6);
  });
});

describe("LogShard.write: states and latency of the messages it inserts", () => {
  it("equal what counting the rows gives, for new, retried, known and earlier-timed messages, alone and mixed", async () => {
    const name = unique("log-write-inserted");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const at = Date.now();
    const write = (w: LogWrite) => shard.write(name, w);
    const statesOf = () =>
      runInDurableObject(shard, (_o: LogShard, state) =>
        Object.fromEntries(
          state.storage.sql
            .exec<{ id: string; states: number }>("SELECT id, states FROM messages")
            .toArray()
            .map((r) => [r.id, r.states]),
        ),
      );
    const check = async (messages: number) => {
      const { stored, counted, messages: n } = await rollupsAndCounts(shard);
      expect(n).toBe(messages);
      expect(stored).toEqual(counted);
      return stored;
    };

    // Inserted as sent with its whole timeline: a retry's second start and a repeated answer (the
    // last of each counts: 4,300 ms, not 5,200 or 2,100), a tie, and the same entry twice.
    const a = message(environmentId, "tx-1", "ann", "mail", at, { status: "sent", provider: "ses" });
    const twice = event(a, "sent", at + 5_200);
    const first: LogWrite = {
      inserts: [a],
      events: [
        event(a, "queued", at),
        event(a, "sending", at),
        event(a, "sending", at + 900),
        event(a, "failed", at + 900),
        event(a, "sent", at + 3_000),
        twice,
        { ...twice, at: at + 9_000 },
        event(a, "sending", at + 900),
      ],
    };
    await write(first);
    expect(await statesOf()).toEqual({ [a.id]: bitOf("sent") | bitOf("queued") | bitOf("sending") | bitOf("failed") });
    expect((await check(1)).latency).toEqual([expect.stringContaining('"bucket":6')]);

    // Retried: the row and its timeline are kept, nothing counted again.
    await write(first);
    await check(1);

    // Its send identity again under a new id, with that id's timeline: the stored row keeps its states.
    const again = { ...a, id: newId("msg"), status: "delivered" as const };
    const known = await write({ inserts: [again], events: [event(again, "sending", at), event(again, "delivered", at + 10)] });
    expect(known.existing).toEqual([{ requested: again.id, id: a.id }]);
    expect((await statesOf())[a.id]).toBe(bitOf("sent") | bitOf("queued") | bitOf("sending") | bitOf("failed"));
    await check(1);

    // Entries stored before their message's row: its latency starts at the earlier `sending` (bucket 7: 7,000 ms).
    const b = message(environmentId, "tx-2", "bob", "mail", at, { status: "sent", provider: "ses" });
    await write({ events: [event(b, "sending", at)] });
    await write({ inserts: [b], events: [event(b, "sent", at + 7_000)] });
    expect((await statesOf())[b.id]).toBe(bitOf("sent"));
    await check(2);

    // One write mixing a stored message's send (its start stored before) with new messages' (their
    // whole timelines here), one of them ending with a reason its timeline gives.
    const c = message(environmentId, "tx-3", "cy", "mail", at);
    await write({ inserts: [c], events: [event(c, "queued", at), event(c, "sending", at + 100)] });
    const d = message(environmentId, "tx-3", "dee", "mail", at, { status: "sent", provider: "ses" });
    const e = message(environmentId, "tx-3", "eve", "mail", at, { status: "skipped" });
    // A later step for a recipient stored before: no new recipient.
    const c2 = message(environmentId, "tx-3", "cy", "text", at + HOUR, { status: "sent", provider: "ses", channel: "sms" });
    const mixed: LogWrite = {
      inserts: [d, e, c2],
      updates: [{ id: c.id, changes: { status: "sent", provider: "ses", updatedAt: at + 400 } }],
      events: [
        event(c, "sent", at + 400),
        event(d, "queued", at),
        event(d, "sending", at + 10),
        event(d, "sent", at + 30),
        event(e, "skipped", at, { reason: "preference" }),
        event(c2, "sending", at + HOUR),
        event(c2, "sent", at + HOUR + 60),
      ],
    };
    await write(mixed);
    expect(await statesOf()).toMatchObject({
      [c.id]: bitOf("queued") | bitOf("sending") | bitOf("sent"),
      [d.id]: bitOf("queued") | bitOf("sending") | bitOf("sent"),
      [e.id]: bitOf("skipped"),
    });
    await check(6);
    await write(mixed);
    await check(6);
  });
});

describe("a log shard's indexes", () => {
  it("leave out the indexes by time alone and the timeline's own index, and a shard made with them drops or keeps them", async () => {
    const shard = env.LOGS.get(env.LOGS.idFromName(unique("log-indexes")));
    const indexes = await runInDurableObject(shard, (_o: LogShard, state) => {
      const sql = state.storage.sql;
      const names = () =>
        sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('messages', 'message_events')")
          .toArray()
          .map((r) => r.name)
          .filter((n) => !n.startsWith("sqlite_autoindex"));
      const fresh = names();
      // As a shard made before: its indexes by time are there when its next constructor runs, and
      // its timeline is keyed by the entry's id alone.
      sql.exec("CREATE INDEX messages_created ON messages (created_at)");
      sql.exec("DROP TABLE message_events");
      sql.exec(
        "CREATE TABLE message_events (id TEXT PRIMARY KEY, env TEXT NOT NULL, message_id TEXT NOT NULL, status TEXT NOT NULL, at INTEGER NOT NULL, detail TEXT) WITHOUT ROWID",
      );
      sql.exec("CREATE INDEX message_events_at ON message_events (at)");
      addMissingColumns(sql);
      const plan = sql
        .exec<{ detail: string }>("EXPLAIN QUERY PLAN SELECT * FROM message_events WHERE message_id = ? ORDER BY at, id", "x")
        .toArray()
        .map((r) => r.detail)
        .join("\n");
      return { fresh, upgraded: names(), plan };
    });
    expect(indexes.fresh).not.toContain("messages_created");
    expect(indexes.fresh.filter((n) => n.startsWith("message_events"))).toEqual([]);
    expect(indexes.upgraded).not.toContain("messages_created");
    expect(indexes.upgraded).not.toContain("message_events_at");
    expect(indexes.upgraded).toContain("message_events_message");
    expect(indexes.plan).toMatch(/SEARCH message_events USING INDEX message_events_message \(message_id=\?\)/);
  });

  it("answer the latency rollup's timeline seeks from the timeline's key", async () => {
    const plan = (await planIn(unique("log-latency-plan"), LATENCY_ADD, "[]")).filter((d) => d.includes("message_events"));
    // Two seeks a message (its last `sending`, its last answer), each a range of the key: not one per bucket, not a scan.
    expect(plan).toHaveLength(2);
    for (const step of plan) expect(step).toMatch(/^SEARCH message_events USING PRIMARY KEY \(message_id=\?\)/);
  });

  it("count a recipient's messages for the audience in the identity index alone, reading no message row", async () => {
    const plan = (await planIn(unique("log-audience-plan"), RECIPIENTS_ADD, "[]")).filter((d) => d.includes("messages"));
    expect(plan).toEqual(["SEARCH messages USING COVERING INDEX messages_identity (env=? AND tx=? AND subscriber=?)"]);
  });
});

describe("LogShard.ofRecipients", () => {
  it("answers each pair's messages in the pairs' order, by step, from the identity index", async () => {
    const name = unique("log-recipients");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const other = unique("env");
    const at = Date.now();
    const ann = [message(environmentId, "tx-1", "ann", "text", at), message(environmentId, "tx-1", "ann", "mail", at)];
    const bob = message(environmentId, "tx-2", "bob", "mail", at);
    const elsewhere = message(other, "tx-2", "bob", "mail", at);
    await shard.write(name, { inserts: [...ann, bob, elsewhere] });
    // The stub's typing of a message's `content` (unknown values) comes out as never: as the shard answers it.
    const found = (await shard.ofRecipients(environmentId, [
      ["tx-2", "bob"],
      ["tx-9", "nobody"],
      ["tx-1", "ann"],
    ])) as unknown as LogMessage[];
    expect(found.map((m) => [m.transactionId, m.subscriberId, m.stepId, m.id])).toEqual([
      ["tx-2", "bob", "mail", bob.id],
      ["tx-1", "ann", "mail", ann[1]!.id],
      ["tx-1", "ann", "text", ann[0]!.id],
    ]);
    expect(found[0]).toMatchObject({ content: bob.content, status: "sending", environmentId });
    expect(await shard.ofRecipients(environmentId, [])).toEqual([]);
    const plan = (await planIn(name, RECIPIENTS_MESSAGES, "[]", environmentId)).join("\n");
    expect(plan).toMatch(/SCAN a .*\n.*SEARCH m USING INDEX messages_identity/);
  });
});
