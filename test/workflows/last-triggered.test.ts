import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { dataFor, dataOf } from "../../src/features/data";
import type { PromotionDiff } from "../../src/features/promotions/schemas";
import { dueLastTriggered, LAST_TRIGGERED_EVERY_MS, recordLastTriggered } from "../../src/features/workflows/last-triggered";
import { workflowsRepository } from "../../src/features/workflows/repository";
import type { Workflow } from "../../src/features/workflows/schemas";
import { createEnvironment, createSandboxEnvironment, createWorkflow } from "../factories";
import { holdingLedgers, postHeld } from "../held-triggers";
import { acceptThenCrash, deliverHeldJobs } from "../ledger";
import { ADMIN_KEY, api } from "../request";

/** A LogStore that records which workflow keys the list asks the shards about (each call asks every shard). */
class CountingLogs extends LogStore {
  readonly asked: string[][] = [];
  override lastTriggered(environmentId: string, workflowKeys: string[]) {
    this.asked.push(workflowKeys);
    return super.lastTriggered(environmentId, workflowKeys);
  }
}

const listed = async (environmentId: string) => {
  const logs = new CountingLogs(env);
  const { data } = await workflowsRepository(createDb(env.DB), environmentId, logs).list(50);
  return { last: Object.fromEntries(data.map((w) => [w.key, w.lastTriggeredAt])), asked: logs.asked };
};

const column = async (workflowId: string) =>
  (await env.DB.prepare("SELECT last_triggered_at AS at FROM workflows WHERE id = ?").bind(workflowId).first<{ at: number | null }>())?.at;

const setColumn = (workflowId: string, at: number | null) =>
  env.DB.prepare("UPDATE workflows SET last_triggered_at = ? WHERE id = ?").bind(at, workflowId).run();

const triggerThroughApi = async (key: string, workflow: string, path = "/v1/trigger") => {
  const { res } = await postHeld(key, path, { workflow, to: "ada" });
  expect(res.status).toBe(202);
};

describe("the workflow list's last triggered, kept on the workflow's row", () => {
  it("shows a trigger as soon as it is accepted, without asking any log shard", async () => {
    const { id, key } = await createEnvironment();
    const used = await createWorkflow(key, { key: "used" });
    await createWorkflow(key, { key: "never" });
    const before = Date.now();
    await triggerThroughApi(key, "used");
    const { last, asked } = await listed(id);
    expect(Date.parse(last.used!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(last.used!)).toBeLessThanOrEqual(Date.now());
    expect(last.never).toBeNull();
    expect(asked).toEqual([]);
    expect(await column(used.id)).toBe(Date.parse(last.used!));
  });

  it.each([
    ["bulk", "/v1/trigger/bulk", (workflow: string) => ({ events: [{ workflow, to: "ada" }] })],
    ["broadcast", "/v1/trigger/broadcast", (workflow: string) => ({ workflow })],
    ["Novu's trigger", "/novu/v1/events/trigger", (workflow: string) => ({ name: workflow, to: "ada" })],
  ])("is written by a %s trigger too", async (_name, path, body) => {
    const { key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    const { res } = await postHeld(key, path, body(workflow.key));
    expect(res.status).toBeLessThan(300);
    expect(await column(workflow.id)).toBeGreaterThan(0);
  });

  it("is written for the workflow a trigger_workflow step starts", async () => {
    const { id, key } = await createSandboxEnvironment();
    const child = await createWorkflow(key);
    const parent = await createWorkflow(key, { steps: [{ id: "start", type: "trigger_workflow", workflow: child.key }] });
    const { res, accepted } = await postHeld(key, "/v1/trigger", {
      workflow: parent.key,
      to: { subscriberId: "ada", email: "ada@example.com" },
    });
    expect(res.status).toBe(202);
    const started: { environmentId: string; transactionId: string }[] = [];
    await deliverHeldJobs(id, accepted[0]!.transactionId, holdingLedgers(started));
    expect(started).toHaveLength(1);
    expect(await column(child.id)).toBeGreaterThan(0);
  });

  it("writes a workflow's row once for two triggers within a minute in one isolate", async () => {
    const { key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    await triggerThroughApi(key, workflow.key);
    const first = await column(workflow.id);
    expect(first).toBeGreaterThan(0);
    // A value no trigger would write: the second trigger must leave it as it is.
    await setColumn(workflow.id, 1);
    await triggerThroughApi(key, workflow.key);
    expect(await column(workflow.id)).toBe(1);
  });

  it("writes again once the isolate's last write is a minute old, and never moves the value back", async () => {
    const { id, key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    const data = dataOf(env, id);
    const t = Date.now();
    await recordLastTriggered(data, [{ workflowId: workflow.id, acceptedAt: t }], t);
    await recordLastTriggered(data, [{ workflowId: workflow.id, acceptedAt: t + 1_000 }], t + LAST_TRIGGERED_EVERY_MS - 1);
    expect(await column(workflow.id)).toBe(t);
    // Another isolate wrote a later acceptance meanwhile: an older one arriving now leaves it.
    await setColumn(workflow.id, t + 5_000);
    await recordLastTriggered(data, [{ workflowId: workflow.id, acceptedAt: t + 2_000 }], t + LAST_TRIGGERED_EVERY_MS);
    expect(await column(workflow.id)).toBe(t + 5_000);
    await recordLastTriggered(data, [{ workflowId: workflow.id, acceptedAt: t + 70_000 }], t + 2 * LAST_TRIGGERED_EVERY_MS);
    expect(await column(workflow.id)).toBe(t + 70_000);
  });

  it("marks each workflow of a batch once, with its newest acceptance", () => {
    const now = 1_000_000;
    expect(
      dueLastTriggered(
        "env_batch",
        [
          { workflowId: "wf_a", acceptedAt: 5 },
          { workflowId: "wf_a", acceptedAt: 9 },
          { workflowId: "wf_b", acceptedAt: 7 },
        ],
        now,
      ),
    ).toEqual([
      { workflowId: "wf_a", at: 9 },
      { workflowId: "wf_b", at: 7 },
    ]);
    expect(dueLastTriggered("env_batch", [{ workflowId: "wf_a", acceptedAt: 10 }], now + 1)).toEqual([]);
    // The same workflow id in another environment is another entry.
    expect(dueLastTriggered("env_other", [{ workflowId: "wf_a", acceptedAt: 10 }], now + 1)).toEqual([{ workflowId: "wf_a", at: 10 }]);
  });

  it("never fails for a failed write, and tries again with the next trigger", async () => {
    const { id, key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    const failing = {
      prepare: (query: string) => env.DB.prepare(query),
      batch: () => Promise.reject(new Error("D1 is overloaded")),
    } as unknown as D1Database;
    const t = Date.now();
    await expect(
      recordLastTriggered(dataFor(createDb(failing), id, undefined, new LogStore(env)), [{ workflowId: workflow.id, acceptedAt: t }], t),
    ).resolves.toBeUndefined();
    expect(await column(workflow.id)).toBe(0);
    await recordLastTriggered(dataOf(env, id), [{ workflowId: workflow.id, acceptedAt: t + 1 }], t + 1);
    expect(await column(workflow.id)).toBe(t + 1);
  });

  it("writes only the accepting environment's row", async () => {
    const mine = await createEnvironment();
    const theirs = await createEnvironment();
    const workflow = await createWorkflow(theirs.key);
    const t = Date.now();
    await recordLastTriggered(dataOf(env, mine.id), [{ workflowId: workflow.id, acceptedAt: t }], t);
    expect(await column(workflow.id)).toBe(0);
  });

  it("asks the log only for rows from before the column (NULL), and only their keys", async () => {
    const { id, key } = await createEnvironment();
    const old = await createWorkflow(key, { key: "old" });
    const fresh = await createWorkflow(key, { key: "fresh" });
    await createWorkflow(key, { key: "unused" });
    await setColumn(old.id, null);
    await setColumn(fresh.id, null);
    // Triggered before the upgrade: the log holds their records, their rows no value.
    const logged = async (workflow: string) =>
      deliverHeldJobs(id, (await acceptThenCrash(id, workflow, { subscriberId: "ada" })).transactionId);
    await logged("old");
    await logged("fresh");
    const loggedAt = (await listed(id)).last;
    expect(loggedAt.old).not.toBeNull();
    // `fresh` is triggered again after the upgrade: its row has a value, and the log is no longer asked for it.
    await triggerThroughApi(key, "fresh");
    const { last, asked } = await listed(id);
    expect(asked).toEqual([["old"]]);
    expect(last.old).toBe(loggedAt.old);
    expect(Date.parse(last.fresh!)).toBeGreaterThan(Date.parse(loggedAt.fresh!));
    expect(last.unused).toBeNull();
  });
});

describe("last triggered is not content", () => {
  it("moves no version, updatedAt, promotion diff or export", async () => {
    const [dev, prod] = await Promise.all([createEnvironment(), createEnvironment()]);
    const body = { key: "same-in-both", steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } }] };
    const created = await createWorkflow(dev.key, body);
    await createWorkflow(prod.key, body);
    await triggerThroughApi(dev.key, created.key);
    expect(await column(created.id)).toBeGreaterThan(0);
    const after = (await api<Workflow>(dev.key, "GET", `/v1/workflows/${created.key}`)).body;
    expect(after).toEqual(created);
    expect(after).not.toHaveProperty("lastTriggeredAt");
    const versions = await api<{ data: unknown[] }>(dev.key, "GET", `/v1/workflows/${created.key}/versions`);
    expect(versions.body.data).toHaveLength(1);
    const diff = await api<PromotionDiff>(ADMIN_KEY, "GET", `/v1/admin/promotions/diff?from=${dev.slug}&to=${prod.slug}`);
    expect(diff.status).toBe(200);
    expect(diff.body.workflows.find((w) => w.key === created.key)).toMatchObject({ status: "unchanged" });
    expect(JSON.stringify(diff.body)).not.toMatch(/lastTriggered|last_triggered/);
  });
});
