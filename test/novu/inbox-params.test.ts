import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { runBatch } from "../../src/db/batch";
import { type InAppFilter, inAppFeed, insertNotifications } from "../../src/db/queries/in-app";
import { createEnvironment, unique } from "../factories";
import { inboxWorkflows } from "../../src/novu/inbox/workflows-repository";

// D1 refuses a statement with more than 100 bound parameters; local SQLite takes more, so the
// count is checked on the statement the routes build for the largest input they accept.
const D1_MAX_PARAMS = 100;
const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("Inbox statements stay within D1's bound parameters", () => {
  const db = createDb(env.DB);
  const now = new Date();
  const widest: InAppFilter = {
    read: true,
    seen: false,
    archived: false,
    workflowKey: "w",
    tags: many(20, "t"),
    tagGroups: Array.from({ length: 10 }, (_, g) => many(20, `g${g}-`)),
    snoozed: { value: false, now },
    data: Array.from({ length: 200 }, (_, k) => ({ path: [`k${k}`, "sub"], anyOf: [...many(48, "v"), 1, null] })),
    createdGte: new Date(0),
    createdLte: now,
    ids: many(100, "ntf_"),
  };

  it("a bulk change (`seen` with 100 ids, every filter at its maximum)", () => {
    const feed = inAppFeed(db, "env", "sub");
    const change = { read: true, seen: true, archived: true, snoozedUntil: now, completedAction: "primary" as const };
    const { params } = feed.updateAllStatement(change, widest, now).toSQL();
    expect(params.length).toBeLessThanOrEqual(D1_MAX_PARAMS);
  });

  it("the workflows of a bulk preference change (100 keys)", () => {
    const { params } = inboxWorkflows(db, "env").byKeysStatement(many(100, "wf-")).toSQL();
    expect(params.length).toBeLessThanOrEqual(D1_MAX_PARAMS);
  });
});

describe("Inbox filters bound as JSON", () => {
  it("match tag groups (AND of ORs), data values (null for missing, booleans, nested keys) and ids", async () => {
    const db = createDb(env.DB);
    const { id: environmentId } = await createEnvironment();
    const subscriberId = unique("sub");
    const row = (id: string, tags: string[], data?: Record<string, unknown>) => ({
      id: `ntf_${id}`,
      environmentId,
      subscriberId,
      transactionId: "tx",
      workflowKey: "w",
      stepId: "in-app",
      content: { body: "b", ...(data ? { data } : {}) },
      tags,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await runBatch(
      db,
      insertNotifications(db, [
        row("a", ["x", "y"], { kind: "order", vip: true, n: 1, deep: { id: "A" } }),
        row("b", ["x"], { kind: "invoice", vip: false, n: 2 }),
        row("c", ["z"]),
      ]),
    );
    const feed = inAppFeed(db, environmentId, subscriberId);
    const ids = async (filter: InAppFilter) => (await feed.list(filter, 10)).data.map((n) => n.id.slice(4)).sort();
    expect(await ids({ tags: ["y", "z"] })).toEqual(["a", "c"]);
    expect(await ids({ tagGroups: [["x"], ["y", "q"]] })).toEqual(["a"]);
    expect(await ids({ data: [{ path: ["kind"], anyOf: ["order", "invoice"] }] })).toEqual(["a", "b"]);
    expect(await ids({ data: [{ path: ["kind"], anyOf: ["order", null] }] })).toEqual(["a", "c"]);
    expect(await ids({ data: [{ path: ["vip"], anyOf: [true] }] })).toEqual(["a"]);
    expect(await ids({ data: [{ path: ["vip"], anyOf: [false] }] })).toEqual(["b"]);
    expect(await ids({ data: [{ path: ["n"], anyOf: [2] }] })).toEqual(["b"]);
    expect(await ids({ data: [{ path: ["n"], anyOf: ["2"] }] })).toEqual([]);
    expect(
      await ids({
        data: [
          { path: ["deep", "id"], anyOf: ["A"] },
          { path: ["kind"], anyOf: ["order"] },
        ],
      }),
    ).toEqual(["a"]);
    expect(
      await ids({
        data: [
          { path: ["deep", "id"], anyOf: ["A"] },
          { path: ["kind"], anyOf: ["invoice"] },
        ],
      }),
    ).toEqual([]);
    expect(await ids({ ids: ["ntf_b", "ntf_c", "ntf_none"] })).toEqual(["b", "c"]);
  });
});
