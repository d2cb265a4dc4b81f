// Trigger records in the log shards (placed by trigger), read merged with D1's legacy records
// (written before the log took them), erased and expired in the shards.
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { TriggerStatus } from "../../src/contract/statuses";
import { runBatch } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { loggedTriggerFactEvents, writtenEvents } from "../../src/db/queries/fact-events";
import { events, triggers } from "../../src/db/schema";
import { recordTriggers } from "../../src/delivery/writes/trigger-writes";
import { logShardFor, triggerPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore, type LogTrigger } from "../../src/durable-objects/client/log-store";
import type { TriggerList } from "../../src/features/triggers/schemas";
import type { Json } from "../../src/contract/json";
import { createEnvironment, createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, deliverHeldJobs } from "../ledger";
import { loggedTrigger } from "../log";
import { api } from "../request";

const db = createDb(env.DB);
const store = new LogStore(env);
// Recent: another file's expiry pass over a shared shard must not take these records.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 86_400_000;

/** A record in the log, accepted `minutes` after T0. */
async function logged(
  environmentId: string,
  minutes: number,
  fields: { transactionId?: string; workflow?: string; status?: TriggerStatus; recipients?: Json[]; actor?: Json; version?: number } = {},
): Promise<string> {
  const transactionId = fields.transactionId ?? unique("txn");
  const at = T0 + minutes * 60_000;
  await recordTriggers(
    store,
    [
      {
        record: {
          environmentId,
          transactionId,
          workflowKey: fields.workflow ?? "welcome",
          workflowVersion: fields.version ?? 2,
          recipients: fields.recipients ?? ["ada"],
          payload: { n: minutes },
          overrides: null,
          actor: fields.actor ?? null,
          acceptedAt: at,
        },
        status: fields.status ?? "completed",
      },
    ],
    at,
  );
  return transactionId;
}

/** A D1 record as 0.12's consumer wrote it (before the log took trigger records). */
async function legacy(
  environmentId: string,
  minutes: number,
  fields: { transactionId?: string; workflow?: string; status?: TriggerStatus; recipients?: unknown[] } = {},
): Promise<string> {
  const transactionId = fields.transactionId ?? unique("txn");
  const at = new Date(T0 + minutes * 60_000);
  await db.insert(triggers).values({
    environmentId,
    transactionId,
    workflowKey: fields.workflow ?? "welcome",
    status: fields.status ?? "completed",
    recipients: fields.recipients ?? ["ada"],
    payload: { legacy: true },
    acceptedAt: at,
    workflowVersion: 1,
    createdAt: at,
    updatedAt: at,
  });
  return transactionId;
}

const list = (key: string, query = "") => api<TriggerList>(key, "GET", `/v1/triggers${query ? `?${query}` : ""}`);
const ids = (res: { body: TriggerList }) => res.body.data.map((t) => t.transactionId);

/** Every page of a list, by its cursor. */
async function allPages(key: string, query: string, limit: number): Promise<string[]> {
  const all: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: TriggerList } = await list(key, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    all.push(...ids(page));
    cursor = page.body.nextCursor;
  } while (cursor);
  return all;
}

describe("trigger records in the log", () => {
  it("are written by delivery to the trigger's shard, and none to D1", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "hello" });
    const { transactionId } = await acceptThenCrash(id, "hello", { subscriberId: "ada", email: "ada@example.com" });
    await deliverHeldJobs(id, transactionId);
    const found = await loggedTrigger(id, transactionId);
    expect(found).toMatchObject({ transactionId, workflowKey: "hello", recipients: [{ subscriberId: "ada", email: "ada@example.com" }] });
    expect(["processing", "completed"]).toContain(found!.status);
    const d1 = await db.select().from(triggers).where(eq(triggers.environmentId, id));
    expect(d1).toEqual([]);
    // One shard holds it: the one its partition names.
    const name = logShardFor(env, triggerPartition(id, transactionId));
    expect(await env.LOGS.get(env.LOGS.idFromName(name)).findTriggers(id, [transactionId])).toHaveLength(1);
  });

  it("never replace a terminal status, and keep a count of cancelled messages until another one", async () => {
    const { id } = await createEnvironment();
    const transactionId = await logged(id, 0, { status: "processing" });
    const write = (status: TriggerStatus, cancelledMessages?: number) =>
      recordTriggers(store, [
        {
          record: {
            environmentId: id,
            transactionId,
            workflowKey: "welcome",
            recipients: [],
            payload: {},
            overrides: null,
            actor: null,
            acceptedAt: T0,
          },
          status,
          ...(cancelledMessages === undefined ? {} : { cancelledMessages }),
        },
      ]);
    expect((await write("cancelled", 3))[0]).toMatchObject({ status: "cancelled", cancelledMessages: 3 });
    expect((await write("processing"))[0]).toMatchObject({ status: "cancelled", cancelledMessages: 3 });
    expect((await store.finishTriggers([{ environmentId: id, transactionId, status: "completed" }], Date.now())).finished).toMatchObject([
      { status: "cancelled" },
    ]);
    // The payload written first stays (an upsert changes status, count and time only).
    expect((await loggedTrigger(id, transactionId))?.payload).toEqual({ n: 0 });
  });

  it("finish the log's records and answer the keys only D1 holds", async () => {
    const { id } = await createEnvironment();
    const inLog = await logged(id, 0, { status: "processing" });
    const inD1 = await legacy(id, 1, { status: "processing" });
    const { finished, legacy: rest } = await store.finishTriggers(
      [
        { environmentId: id, transactionId: inLog, status: "completed" },
        { environmentId: id, transactionId: inD1, status: "failed" },
      ],
      T0 + 5,
    );
    expect(finished).toMatchObject([{ transactionId: inLog, status: "completed", updatedAt: T0 + 5 }]);
    expect(rest).toEqual([{ environmentId: id, transactionId: inD1, status: "failed" }]);
  });
});

describe("GET /v1/trigger/{transactionId} with the log and D1's legacy records", () => {
  it("answers a trigger from the log, one from D1, and the log's when both hold it", async () => {
    const { id, key } = await createEnvironment();
    const inLog = await logged(id, 0, { workflow: "a", version: 4 });
    const inD1 = await legacy(id, 1, { workflow: "b" });
    const both = await legacy(id, 2, { workflow: "c", status: "processing" });
    await logged(id, 2, { transactionId: both, workflow: "c", status: "cancelled" });
    const status = (tx: string) => api<Record<string, unknown>>(key, "GET", `/v1/trigger/${encodeURIComponent(tx)}`);
    expect((await status(inLog)).body).toMatchObject({ workflow: "a", workflowVersion: 4, status: "completed", payload: { n: 0 } });
    expect((await status(inD1)).body).toMatchObject({ workflow: "b", workflowVersion: 1, status: "completed", payload: { legacy: true } });
    expect((await status(both)).body).toMatchObject({ workflow: "c", status: "cancelled" });
    expect((await status("nope")).status).toBe(404);
  });
});

describe("GET /v1/triggers with the log and D1's legacy records", () => {
  it("merges both newest first and pages through both with one cursor, each trigger once", async () => {
    const { id, key } = await createEnvironment();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push(i % 2 ? await legacy(id, i) : await logged(id, i));
    // In both (in flight at the upgrade): shown once, as the log has it.
    const both = await legacy(id, 7, { status: "processing" });
    await logged(id, 7, { transactionId: both, status: "completed" });
    made.push(both);
    expect(await allPages(key, "", 2)).toEqual([...made].reverse());
    expect((await list(key)).body.data[0]).toMatchObject({ transactionId: both, status: "completed" });
  });

  it("filters by workflow, status, transactionId and time in both", async () => {
    const { id, key } = await createEnvironment();
    const a1 = await logged(id, 0, { workflow: "a" });
    const a2 = await legacy(id, 1, { workflow: "a", status: "failed" });
    const b1 = await logged(id, 2, { workflow: "b", status: "failed" });
    const b2 = await legacy(id, 3, { workflow: "b" });
    expect(ids(await list(key, "workflow=a"))).toEqual([a2, a1]);
    expect(ids(await list(key, "status=failed"))).toEqual([b1, a2]);
    expect(ids(await list(key, `transactionId=${b1}`))).toEqual([b1]);
    expect(ids(await list(key, `transactionId=${a2}`))).toEqual([a2]);
    const since = new Date(T0 + 60_000).toISOString();
    const until = new Date(T0 + 2 * 60_000).toISOString();
    expect(ids(await list(key, `since=${since}&until=${until}`))).toEqual([b1, a2]);
    expect(await allPages(key, "workflow=b", 1)).toEqual([b2, b1]);
  });

  it("finds a subscriber's triggers in the log by their messages", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "hello" });
    const mine = await acceptThenCrash(id, "hello", { subscriberId: "grace", email: "grace@example.com" });
    const theirs = await acceptThenCrash(id, "hello", { subscriberId: "alan", email: "alan@example.com" });
    await deliverHeldJobs(id, mine.transactionId);
    await deliverHeldJobs(id, theirs.transactionId);
    expect(ids(await list(key, "subscriberId=grace"))).toEqual([mine.transactionId]);
    expect(ids(await list(key, `subscriberId=grace&transactionId=${theirs.transactionId}`))).toEqual([]);
  });
});

describe("the workflow list's last triggered, from the log and D1's legacy records", () => {
  it("takes the newest of both, per workflow", async () => {
    const { id, key } = await createEnvironment();
    for (const k of ["both", "legacy", "logged", "never"]) await createWorkflow(key, { key: k });
    // Rows from before the accept path wrote last_triggered_at (NULL): the only ones the list asks the log for.
    await env.DB.prepare("UPDATE workflows SET last_triggered_at = NULL WHERE environment_id = ?").bind(id).run();
    await legacy(id, 5, { workflow: "both" });
    await logged(id, 9, { workflow: "both" });
    await legacy(id, 7, { workflow: "legacy" });
    await logged(id, 3, { workflow: "logged" });
    await logged(id, 1, { workflow: "logged" });
    type Page = { data: { key: string; lastTriggeredAt: string | null }[] };
    const listed = (await api<Page>(key, "GET", "/v1/workflows")).body.data;
    const last = Object.fromEntries(listed.map((w) => [w.key, w.lastTriggeredAt]));
    const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
    expect(last).toEqual({ both: iso(9), legacy: iso(7), logged: iso(3), never: null });
  });
});

describe("trigger.completed and trigger.cancelled from the log's record", () => {
  it("describe the trigger as the log left it, once however often written", async () => {
    const { id, key } = await createEnvironment();
    await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    const transactionId = await logged(id, 0, { workflow: "orders", status: "completed" });
    const [row] = await store.findTriggers(id, [transactionId]);
    const described = { ...(row as LogTrigger), counts: { delivered: 2 } };
    const first = writtenEvents(await runBatch(db, [loggedTriggerFactEvents(db, "trigger.completed", [described])]), [0]);
    const again = writtenEvents(
      await runBatch(db, [loggedTriggerFactEvents(db, "trigger.completed", [{ ...described, updatedAt: described.updatedAt + 9 }])]),
      [0],
    );
    expect(first).toHaveLength(1);
    expect(first[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(again).toEqual([]);
    const stored = await db.select().from(events).where(eq(events.id, first[0]!.id));
    expect(stored[0]).toMatchObject({
      type: "trigger.completed",
      data: { transactionId, workflow: "orders", status: "completed", counts: { delivered: 2 } },
    });
    expect(stored[0]!.createdAt.getTime()).toBe(T0);
  });

  it("write trigger.cancelled from DELETE /v1/trigger/ with the log's record and its cancelled count", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "hello" });
    await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    const { transactionId } = await acceptThenCrash(id, "hello", { subscriberId: "ada", email: "ada@example.com" });
    expect((await api(key, "DELETE", "/v1/trigger/", { transactionId })).status).toBe(200);
    expect((await loggedTrigger(id, transactionId))?.status).toBe("cancelled");
    const written = (await db.select().from(events).where(eq(events.environmentId, id))).filter((e) => e.type === "trigger.cancelled");
    expect(written.map((e) => e.data)).toMatchObject([{ transactionId, workflow: "hello", status: "cancelled" }]);
    expect(written[0]!.data).toHaveProperty("cancelledMessages");
  });
});

describe("erasure in the log's trigger records", () => {
  it("redacts the triggers of their messages and those quoting them inline or as actor, and no one else's", async () => {
    const { id } = await createEnvironment();
    const profile = { subscriberId: "gone", email: "gone@example.com" };
    const other = { subscriberId: "kept", email: "kept@example.com" };
    const ofMessages = await logged(id, 0, { recipients: [profile, other] });
    const quoted = await logged(id, 1, { recipients: ["someone", profile] });
    const asActor = await logged(id, 2, { recipients: ["someone"], actor: profile });
    const untouched = await logged(id, 3, { recipients: [other], actor: other });
    expect(await store.eraseTriggerSubject(id, "gone", [ofMessages])).toBe(3);
    expect((await loggedTrigger(id, ofMessages))?.recipients).toEqual(["gone", other]);
    expect((await loggedTrigger(id, quoted))?.recipients).toEqual(["someone", "gone"]);
    expect((await loggedTrigger(id, asActor))?.actor).toBe("gone");
    expect(await loggedTrigger(id, untouched)).toMatchObject({ recipients: [other], actor: other });
    // The index of who a trigger quotes forgets them: a second erasure finds nothing.
    expect(await store.eraseTriggerSubject(id, "gone", [])).toBe(0);
  });

  it("goes with a deleted environment", async () => {
    const { id } = await createEnvironment();
    const tx = await logged(id, 0);
    expect(await store.eraseEnvironment(id)).toMatchObject({ triggers: 1, more: false });
    expect(await loggedTrigger(id, tx)).toBeNull();
  });
});

describe("expiry of the log's trigger records", () => {
  it("removes finished triggers past retention, archiving them as <env>/triggers/<day>/<shard>.ndjson; keeps unfinished and young ones", async () => {
    const { id } = await createEnvironment();
    const old = Date.UTC(2026, 0, 2, 12);
    const at = (ms: number) => (ms - T0) / 60_000;
    const gone = await logged(id, at(old), { status: "completed" });
    const running = await logged(id, at(old), { status: "processing" });
    const young = await logged(id, at(Date.now()), { status: "completed" });
    const name = logShardFor(env, triggerPartition(id, gone));
    const expired = await env.LOGS.get(env.LOGS.idFromName(name)).expire(Date.now(), true);
    expect(expired.triggers).toBeGreaterThanOrEqual(1);
    expect(await loggedTrigger(id, gone)).toBeNull();
    expect(await loggedTrigger(id, running)).not.toBeNull();
    expect(await loggedTrigger(id, young)).not.toBeNull();
    const object = await env.ARCHIVE.get(`${id}/triggers/2026-01-02/${name.replaceAll("/", "-")}.ndjson`);
    const lines = (await object!.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogTrigger);
    expect(lines).toMatchObject([{ transactionId: gone, status: "completed", payload: { n: at(old) } }]);
  });
});
