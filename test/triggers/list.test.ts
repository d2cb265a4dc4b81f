import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TriggerStatus } from "../../src/contract/statuses";
import { createDb } from "../../src/db/client";
import { messages, triggers } from "../../src/db/schema";
import { listQuery } from "../../src/features/triggers/repository";
import type { TriggerList } from "../../src/features/triggers/schemas";
import { recordTriggers } from "../../src/delivery/writes/trigger-writes";
import { logShardFor, triggerPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { newId } from "../../src/lib/ids";
import { createEnvironment, createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, deliverHeldJobs } from "../ledger";
import { api, expectProblem } from "../request";

const db = createDb(env.DB);
const T0 = Date.UTC(2026, 2, 2, 10);

/** A D1 trigger record as the Queue consumer writes it, accepted `minutes` after T0. */
async function record(
  environmentId: string,
  minutes: number,
  fields: { workflow?: string; status?: TriggerStatus; recipients?: unknown[] } = {},
) {
  const transactionId = unique("txn");
  const at = new Date(T0 + minutes * 60_000);
  await db.insert(triggers).values({
    environmentId,
    transactionId,
    workflowKey: fields.workflow ?? "welcome",
    status: fields.status ?? "completed",
    recipients: fields.recipients ?? ["ada"],
    payload: {},
    acceptedAt: at,
    createdAt: at,
    updatedAt: at,
  });
  return transactionId;
}

const list = (key: string, query = "") => api<TriggerList>(key, "GET", `/v1/triggers${query ? `?${query}` : ""}`);
const ids = (res: { body: TriggerList }) => res.body.data.map((t) => t.transactionId);

/** D1 trigger records of these transactionIds, all accepted at T0. */
async function sameInstant(environmentId: string, transactionIds: string[]) {
  const at = new Date(T0);
  await db.insert(triggers).values(
    transactionIds.map((transactionId) => ({
      environmentId,
      transactionId,
      workflowKey: "w",
      status: "completed" as const,
      recipients: [],
      payload: {},
      acceptedAt: at,
      createdAt: at,
      updatedAt: at,
    })),
  );
}

/** Every trigger, one page of one at a time by the cursor (at most `expected` + 1 pages: a loop would show as a longer list). */
async function pageByPage(key: string, expected: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: TriggerList } = await list(key, `limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    seen.push(...ids(page));
    cursor = page.body.nextCursor;
  } while (cursor && seen.length <= expected);
  return seen;
}

describe("GET /v1/triggers", () => {
  it("lists a trigger once the consumer has run its first job", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "hello" });
    // The job goes to the consumer now, as the Queue would deliver it, rather than through the Queue.
    const { transactionId } = await acceptThenCrash(id, "hello", { subscriberId: "ada", email: "ada@example.com" });
    await deliverHeldJobs(id, transactionId);
    const found = (await list(key)).body.data.find((t) => t.transactionId === transactionId)!;
    expect(found).toMatchObject({ transactionId, workflow: "hello", recipients: ["ada"], recipientCount: 1 });
    expect(["accepted", "processing", "completed"]).toContain(found.status);
  });

  it("lists newest first and pages with a cursor", async () => {
    const { id, key } = await createEnvironment();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await record(id, i));
    const first = await list(key, "limit=2");
    expect(ids(first)).toEqual([made[4], made[3]]);
    const second = await list(key, `limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(ids(second)).toEqual([made[2], made[1]]);
    const third = await list(key, `limit=2&cursor=${encodeURIComponent(second.body.nextCursor!)}`);
    expect(ids(third)).toEqual([made[0]]);
    expect(third.body.nextCursor).toBeNull();
  });

  it("pages past transactionIds with ':' accepted at the same instant", async () => {
    const { id, key } = await createEnvironment();
    await sameInstant(id, ["order:1", "order:2", "order:3"]);
    const first = await list(key, "limit=2");
    const second = await list(key, `limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect([...ids(first), ...ids(second)]).toEqual(["order:3", "order:2", "order:1"]);
  });

  it("pages past transactionIds that JavaScript and SQLite order apart (an emoji beside U+FF01), accepted at the same instant", async () => {
    const { id, key } = await createEnvironment();
    const made = ["t-\uFF01", "t-😀", "t-\uFF02", "t-😁", "t-a"];
    await sameInstant(id, made);
    const seen = await pageByPage(key, made.length);
    // Newest first, then transactionId descending as SQLite compares it (UTF-8 bytes: the emoji after U+FFxx).
    expect(seen).toEqual(["t-😁", "t-😀", "t-\uFF02", "t-\uFF01", "t-a"]);
  });

  it("pages the log shards' records the same way, merged across shards", async () => {
    const { id, key } = await createEnvironment();
    const made = ["t-\uFF01", "t-😀", "t-\uFF02", "t-😁", "t-\uFFFD", "t-𝔸", "t-a"];
    const acceptedAt = Date.now();
    const record = (transactionId: string) => ({
      environmentId: id,
      transactionId,
      workflowKey: "w",
      workflowVersion: 1,
      recipients: [],
      payload: {},
      overrides: null,
      actor: null,
      acceptedAt,
    });
    await recordTriggers(
      new LogStore(env),
      made.map((transactionId) => ({ record: record(transactionId), status: "completed" as const })),
    );
    expect(new Set(made.map((tx) => logShardFor(env, triggerPartition(id, tx)))).size).toBeGreaterThan(1);
    const seen = await pageByPage(key, made.length);
    expect(seen).toEqual(["t-😁", "t-😀", "t-𝔸", "t-\uFFFD", "t-\uFF02", "t-\uFF01", "t-a"]);
  });

  it("filters by workflow, status, transactionId and time", async () => {
    const { id, key } = await createEnvironment();
    const a = await record(id, 0, { workflow: "welcome", status: "completed" });
    const b = await record(id, 10, { workflow: "digest", status: "cancelled" });
    const c = await record(id, 20, { workflow: "welcome", status: "processing" });
    expect(ids(await list(key, "workflow=welcome"))).toEqual([c, a]);
    expect(ids(await list(key, "status=cancelled"))).toEqual([b]);
    expect(ids(await list(key, `transactionId=${a}`))).toEqual([a]);
    const window = `since=${new Date(T0 + 5 * 60_000).toISOString()}&until=${new Date(T0 + 15 * 60_000).toISOString()}`;
    expect(ids(await list(key, window))).toEqual([b]);
  });

  it("filters by subscriber through the trigger's messages", async () => {
    const { id, key } = await createEnvironment();
    const toTopic = await record(id, 0, { recipients: [{ topic: "beta" }] });
    await record(id, 1, { recipients: ["bob"] });
    await db.insert(messages).values({
      id: newId("msg"),
      environmentId: id,
      transactionId: toTopic,
      subscriberId: "ada",
      workflowKey: "welcome",
      stepId: "mail",
      channel: "email",
      status: "sent",
      createdAt: new Date(T0),
      updatedAt: new Date(T0),
    });
    expect(ids(await list(key, "subscriberId=ada"))).toEqual([toTopic]);
  });

  it("names recipients without their addresses, and counts them all", async () => {
    const { id, key } = await createEnvironment();
    const many = Array.from({ length: 12 }, (_, i) => `user-${i}`);
    await record(id, 0, {
      recipients: [{ subscriberId: "ada", email: "ada@example.com" }, { topic: "beta" }, { topic: "gamma" }],
    });
    await record(id, 1, { recipients: [{ type: "Broadcast" }] });
    await record(id, 2, { recipients: many });
    const res = await list(key);
    expect(res.body.data.map((t) => [t.recipients, t.recipientCount])).toEqual([
      [many.slice(0, 10), 12],
      [["broadcast"], 1],
      [["ada", "topic:beta", "topic:gamma"], 3],
    ]);
  });

  it("sees only the environment of the key", async () => {
    const mine = await createEnvironment();
    const other = await createEnvironment();
    await record(other.id, 0);
    expect((await list(mine.key)).body).toEqual({ data: [], nextCursor: null });
  });

  it.each([["status=unknown"], ["limit=0"], ["limit=201"], ["since=yesterday"]])("refuses %s", async (query) => {
    const { key } = await createEnvironment();
    expectProblem(await list(key, query), 422, "validation_failed");
  });

  it.each([
    ["the newest", {}, ["triggers_env_accepted_idx"]],
    ["one workflow's", { workflow: "welcome" }, ["triggers_env_workflow_idx"]],
    [
      "a subscriber's",
      { subscriberId: "ada" },
      ["SEARCH messages USING INDEX messages_env_subscriber_idx", "SEARCH triggers USING INDEX triggers_env_txn_uq"],
    ],
  ])("reads %s triggers through an index", async (_, filter, indexes) => {
    const query = listQuery(db, "env_x", { limit: 50, ...filter }).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join("\n");
    for (const index of indexes) expect(details).toContain(index);
    expect(details).not.toMatch(/SCAN triggers(?! USING)/);
  });
});
