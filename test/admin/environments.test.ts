import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import worker from "../../src/index";
import { allLogShards, shardsOfSlice } from "../../src/durable-objects/client/log-naming";
import { DeliveryJob, type EraseEnvironmentJob } from "../../src/jobs/job";
import { PackedJobs } from "../../src/jobs/pack";
import { describe, expect, it } from "vitest";
import type { Environment, EnvironmentList } from "../../src/features/environments/schemas";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { ENVIRONMENT_TABLES, OUTLIVES_ENVIRONMENT } from "../../src/features/environments/repository";
import { ERASURE_PENDING_GRACE_MS } from "../../src/features/environments/erasure-repository";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { ADMIN_KEY, api, errorPaths, expectProblem } from "../request";
import { admin, adminEnvironment } from "./helpers";
import { getTableName } from "drizzle-orm";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { withEveryDeliveryQueue } from "../delivery-queues";

describe("POST /v1/admin/environments", () => {
  it("creates an environment", async () => {
    const slug = unique("stg");
    const res = await admin<Environment>("POST", "/environments", { name: "Staging", slug });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^env_/), name: "Staging", slug, createdAt: expect.any(String) });
  });

  it("refuses a slug that is taken with 409", async () => {
    const { environment } = await adminEnvironment();
    expectProblem(await admin("POST", "/environments", { name: "Again", slug: environment.slug }), 409, "environment_exists");
  });

  it.each([
    [{ name: "No slug" }, "slug"],
    [{ name: "Upper", slug: "Staging" }, "slug"],
    [{ name: "Space", slug: "my env" }, "slug"],
    [{ name: "Long", slug: `a${"b".repeat(32)}` }, "slug"],
    [{ name: "", slug: "empty-name" }, "name"],
    [{ name: "Extra", slug: "extra", color: "red" }, "(root)"],
  ])("refuses %j with 422 naming %s", async (body, path) => {
    const res = await admin("POST", "/environments", body);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain(path);
  });
});

describe("GET /v1/admin/environments", () => {
  it("lists environments by slug, a page at a time", async () => {
    const a = await adminEnvironment(unique("list-a"));
    const b = await adminEnvironment(unique("list-b"));
    const slugs: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { body: EnvironmentList } = await admin<EnvironmentList>(
        "GET",
        `/environments?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      slugs.push(...page.body.data.map((e) => e.slug));
      cursor = page.body.nextCursor;
    }
    expect(slugs).toEqual([...slugs].sort());
    expect(slugs).toEqual(expect.arrayContaining([a.environment.slug, b.environment.slug]));
  });
});

describe("PATCH /v1/admin/environments/{slug}", () => {
  it("renames an environment and keeps its slug", async () => {
    const { environment } = await adminEnvironment();
    const res = await admin<Environment>("PATCH", `/environments/${environment.slug}`, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...environment, name: "Renamed" });
  });

  it("answers 404 for an unknown slug", async () => {
    expectProblem(await admin("PATCH", "/environments/no-such-env", { name: "X" }), 404, "environment_not_found");
  });
});

/** The tables of the database with an `environment_id` column. */
async function tablesWithEnvironmentId(): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%`environment_id`%'").all<{
    name: string;
  }>();
  return results.map((r) => r.name).sort();
}

const rowsOf = async (environmentId: string) =>
  Object.fromEntries(
    await Promise.all(
      (await tablesWithEnvironmentId()).map(async (table) => {
        const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE environment_id = ?`)
          .bind(environmentId)
          .first<{ n: number }>();
        return [table, row!.n] as const;
      }),
    ),
  );

/**
 * The Worker's bindings with the delivery Queues held: what a request enqueues waits in `held`
 * until the test hands it to the consumer (`consume`), instead of racing the Queue.
 */
function holdDelivery({ refuse = false } = {}) {
  const held: unknown[] = [];
  const queue = {
    async send(body: unknown) {
      if (refuse) throw new Error("Queue send failed: internal error");
      held.push(body);
    },
    async sendBatch(messages: Iterable<MessageSendRequest<unknown>>) {
      if (refuse) throw new Error("Queue send failed: internal error");
      for (const m of messages) held.push(m.body);
    },
  } as unknown as Queue<DeliveryJob>;
  const bindings: typeof env = withEveryDeliveryQueue(env, queue);
  return {
    /** The bindings with the Queues held, for the Worker's other handlers. */
    bindings,
    via: {
      async fetch(path: string, init: RequestInit) {
        const ctx = createExecutionContext();
        const res = await worker.fetch(new Request(`http://clarion.test${path}`, init), bindings, ctx);
        await waitOnExecutionContext(ctx);
        return res;
      },
    },
    /** The held jobs, packs opened. */
    jobs: () =>
      held.flatMap((body) => {
        const pack = PackedJobs.safeParse(body);
        return (pack.success ? pack.data.jobs : [body]).map((job) => DeliveryJob.parse(job));
      }),
    /** Hands what is held to the Worker's consumer (with the real bindings) as one batch; answers its result. */
    async consume(bindings: typeof env = env) {
      const batch = createMessageBatch(
        "clarion-delivery-0",
        held.splice(0).map((body, i) => ({ id: `held-${i}`, timestamp: new Date(), attempts: 1, body })),
      );
      const ctx = createExecutionContext();
      await worker.queue(batch, bindings);
      return getQueueResult(batch, ctx);
    },
  };
}

describe("DELETE /v1/admin/environments/{slug}", () => {
  it("knows every table that holds an environment's data", async () => {
    expect([...ENVIRONMENT_TABLES, ...OUTLIVES_ENVIRONMENT].map((t) => getTableName(t)).sort()).toEqual(await tablesWithEnvironmentId());
  });

  it("deletes the environment with everything it holds, and leaves the others alone", async () => {
    const doomed = await createSandboxEnvironment();
    const kept = await createSandboxEnvironment();
    for (const { key } of [doomed, kept]) {
      const workflow = await createWorkflow(key);
      expect(
        (
          await api(key, "POST", "/sub", {
            subscriberId: "ada",
            email: "ada@example.com",
            channels: { push: [{ provider: "fcm", token: "t-1" }] },
          })
        ).status,
      ).toBe(201);
      expect((await api(key, "POST", "/v1/topics", { key: "news", name: "News" })).status).toBe(201);
      expect((await api(key, "POST", "/v1/topics/news/subscribers", { subscriberIds: ["ada"] })).status).toBeLessThan(300);
      expect((await api(key, "POST", "/v1/variables", { key: "SUPPORT", value: "x" })).status).toBe(201);
      expect((await api(key, "POST", "/v1/tenants", { id: "acme", name: "Acme" })).status).toBe(201);
      expect((await api(key, "PUT", "/v1/subscribers/ada/preferences?tenant=acme", { channels: { sms: false } })).status).toBe(200);
      // An opt-out, counted for the analytics.
      expect((await api(key, "PUT", "/v1/subscribers/ada/preferences", { channels: { push: false } })).status).toBe(200);
      expect((await api(key, "POST", "/v1/layouts", { key: "frame", name: "Frame", html: "<main>{{ content }}</main>" })).status).toBe(201);
      expect((await api(key, "POST", "/v1/partials", { key: "sig", name: "Sig", content: "-- us", type: "text" })).status).toBe(201);
      // The brand, its versions, a locale's translations, their versions and the translation settings.
      const colors = { primary: "#000000", background: "#ffffff", text: "#000000", link: "#0000ee" };
      expect((await api(key, "PUT", "/v1/brand", { name: "Acme", logoUrl: null, colors })).status).toBe(200);
      expect((await api(key, "PUT", "/v1/translations/en", { keys: { hello: "Hello" } })).status).toBe(200);
      // A proposal, pending review.
      const proposal = { resource: "partial", key: "sig", content: { name: "Sig", content: "-- the team", type: "text" }, note: "Warmer" };
      expect((await api(key, "POST", "/v1/proposals", proposal)).status).toBe(201);
      const tx = await triggerDelivered(key, { workflow: workflow.key, to: "ada" });
      await deliveredMessages(key, tx, 1);
    }
    for (const { id, key } of [doomed, kept]) {
      await env.DB.prepare(
        "INSERT INTO suppressions (environment_id, address, channel, reason, created_at) VALUES (?, ?, 'email', 'hard_bounce', ?)",
      )
        .bind(id, "gone@example.com", Date.now())
        .run();
      // The inbox settings are made on first read; an endpoint, one delivery attempt to it, one in-app notification and an open Inbox's presence.
      expect((await api(key, "GET", "/v1/in-app/settings")).status).toBe(200);
      const endpoint = await api<{ id: string }>(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
      expect(endpoint.status).toBe(201);
      await env.DB.batch([
        env.DB.prepare(
          "INSERT INTO webhook_attempts (id, environment_id, endpoint_id, event_id, event_type, attempt, status, latency_ms, created_at) VALUES (?, ?, ?, 'evt_x', 'webhook.test', 1, 'succeeded', 5, ?)",
        ).bind(unique("att"), id, endpoint.body.id, Date.now()),
        env.DB.prepare(
          "INSERT INTO in_app_notifications (id, environment_id, subscriber_id, transaction_id, workflow_key, step_id, content, tags, created_at, updated_at) VALUES (?, ?, 'ada', 'tx', 'wf', 'inbox', '{}', '[]', ?, ?)",
        ).bind(unique("msg"), id, Date.now(), Date.now()),
        env.DB.prepare("INSERT INTO inbox_presence (environment_id, subscriber_id, sockets, updated_at) VALUES (?, 'ada', 1, ?)").bind(
          id,
          Date.now(),
        ),
        // A message from before the log left D1 (the trigger's own message is in the log's shards).
        env.DB.prepare(
          "INSERT INTO messages (id, environment_id, transaction_id, subscriber_id, workflow_key, step_id, channel, status, attempts, created_at, updated_at) VALUES (?, ?, 'tx-old', 'ada', 'wf', 'mail', 'email', 'sent', 1, ?, ?)",
        ).bind(`legacy-${id}`, id, Date.now(), Date.now()),
        env.DB.prepare("INSERT INTO message_events (id, environment_id, message_id, status, at) VALUES (?, ?, ?, 'sent', ?)").bind(
          unique("evt"),
          id,
          `legacy-${id}`,
          Date.now(),
        ),
        // And the sandbox's capture of it, which D1 kept then too (the new message's is in its shard).
        env.DB.prepare(
          "INSERT INTO sandbox_messages (id, environment_id, message_id, channel, provider, \"to\", content, created_at) VALUES (?, ?, ?, 'email', 'sandbox-email', 'ada@example.com', '{}', ?)",
        ).bind(unique("cap"), id, `legacy-${id}`, Date.now()),
        // And its trigger's record, from then too (the new trigger's record is in the log's shards).
        env.DB.prepare(
          "INSERT INTO triggers (environment_id, transaction_id, workflow_key, status, recipients, payload, accepted_at, created_at, updated_at) VALUES (?, 'tx-old', 'wf', 'completed', '[\"ada\"]', '{}', ?, ?, ?)",
        ).bind(id, Date.now(), Date.now(), Date.now()),
      ]);
    }
    const slug = (await env.DB.prepare("SELECT slug FROM environments WHERE id = ?").bind(doomed.id).first<{ slug: string }>())!.slug;
    // Every table holds some of it, but the erasure it will owe the log once deleted.
    const { environment_erasures: owedBefore, ...before } = await rowsOf(doomed.id);
    expect(owedBefore).toBe(0);
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const logs = new LogStore(env);
    expect(await logs.list({ environmentId: doomed.id, limit: 10 })).toHaveLength(1);
    expect(await logs.listTriggers({ environmentId: doomed.id, limit: 10 })).toHaveLength(1);
    expect(await logs.captures(doomed.id, 10)).toHaveLength(1);

    const delivery = holdDelivery();
    expect((await api(ADMIN_KEY, "DELETE", `/v1/admin/environments/${slug}`, undefined, { via: delivery.via })).status).toBe(204);

    // Nothing is left, nor owed: its log's erasure is on the Queue.
    const { audit_log: audited, ...left } = await rowsOf(doomed.id);
    expect(Object.values(left).every((n) => n === 0)).toBe(true);
    // The audit log outlives the environment: its last entry says who deleted it.
    expect(audited).toBeGreaterThan(0);
    const last = await env.DB.prepare(
      "SELECT resource, action, environment_slug AS slug FROM audit_log WHERE environment_id = ? ORDER BY id DESC LIMIT 1",
    )
      .bind(doomed.id)
      .first();
    expect(last).toEqual({ resource: "environment", action: "deleted", slug });
    expect(await env.DB.prepare("SELECT id FROM environments WHERE id = ?").bind(doomed.id).first()).toBeNull();
    expect(await rowsOf(kept.id)).toEqual(expect.objectContaining({ workflows: 1, subscribers: 1, messages: 1, suppressions: 1 }));
    // The log's shards go by queued jobs, one per slice of shards, together covering every shard once.
    const jobs = delivery.jobs().filter((j): j is EraseEnvironmentJob => j.type === "erase-environment");
    expect(jobs.every((j) => j.environmentId === doomed.id)).toBe(true);
    expect(jobs.flatMap((j) => shardsOfSlice(j.shards)).sort()).toEqual(allLogShards(env).sort());
    expect(await logs.list({ environmentId: doomed.id, limit: 10 })).toHaveLength(1);
    const consumed = await delivery.consume();
    expect(consumed.retryMessages).toEqual([]);
    expect(consumed.explicitAcks).toHaveLength(jobs.length);
    // Then the doomed environment's messages and trigger records are gone, the other's stay.
    expect(await logs.list({ environmentId: doomed.id, limit: 10 })).toEqual([]);
    expect(await logs.list({ environmentId: kept.id, limit: 10 })).toHaveLength(1);
    expect(await logs.listTriggers({ environmentId: doomed.id, limit: 10 })).toEqual([]);
    expect(await logs.listTriggers({ environmentId: kept.id, limit: 10 })).toHaveLength(1);
    expect(await logs.captures(doomed.id, 10)).toEqual([]);
    expect(await logs.captures(kept.id, 10)).toHaveLength(1);
  });

  it("still deletes when the Queue refuses the erasure: the cron enqueues it after a minute, once", async () => {
    const { environment } = await adminEnvironment();
    const owed = () =>
      env.DB.prepare("SELECT environment_id FROM environment_erasures WHERE environment_id = ?").bind(environment.id).first();
    const refused = holdDelivery({ refuse: true });
    const res = await api(ADMIN_KEY, "DELETE", `/v1/admin/environments/${environment.slug}`, undefined, { via: refused.via });
    expect(res.status).toBe(204);
    expect(await env.DB.prepare("SELECT id FROM environments WHERE id = ?").bind(environment.id).first()).toBeNull();
    expect(await owed()).toEqual({ environment_id: environment.id });

    const delivery = holdDelivery();
    const cron = (at: number) =>
      worker.scheduled(createScheduledController({ scheduledTime: at, cron: "*/10 * * * *" }), delivery.bindings);
    // Within a minute of the deletion the erasure is its request's to enqueue.
    await cron(Date.now());
    expect(delivery.jobs().filter((j) => j.type === "erase-environment")).toEqual([]);
    await cron(Date.now() + ERASURE_PENDING_GRACE_MS + 1_000);
    const jobs = delivery.jobs().filter((j): j is EraseEnvironmentJob => j.type === "erase-environment");
    expect(jobs.every((j) => j.environmentId === environment.id)).toBe(true);
    expect(jobs.flatMap((j) => shardsOfSlice(j.shards)).sort()).toEqual(allLogShards(env).sort());
    expect(await owed()).toBeNull();
    // Enqueued once: the next run finds nothing owed.
    await cron(Date.now() + ERASURE_PENDING_GRACE_MS + 2_000);
    expect(delivery.jobs().filter((j) => j.type === "erase-environment")).toHaveLength(jobs.length);
  });

  it("retries an erasure job whose shards failed", async () => {
    const { environment } = await adminEnvironment();
    const delivery = holdDelivery();
    expect((await api(ADMIN_KEY, "DELETE", `/v1/admin/environments/${environment.slug}`, undefined, { via: delivery.via })).status).toBe(
      204,
    );
    const failing = {
      idFromName: (name: string) => env.LOGS.idFromName(name),
      get: () => ({
        eraseEnvironment: () => Promise.reject(new Error("shard unavailable")),
      }),
    } as unknown as typeof env.LOGS;
    const consumed = await delivery.consume({ ...env, LOGS: failing });
    expect(consumed.retryMessages.map((m) => m.msgId)).toEqual(["held-0"]);
    expect(consumed.explicitAcks).toEqual([]);
  });

  it("refuses the deleted environment's key at once", async () => {
    const { environment, key } = await adminEnvironment();
    expect((await api(key.key, "GET", "/v1/workflows")).status).toBe(200);
    expect((await admin("DELETE", `/environments/${environment.slug}`)).status).toBe(204);
    expectProblem(await api(key.key, "GET", "/v1/workflows"), 401, "unauthorized");
  });

  it("answers 404 for an unknown slug", async () => {
    expectProblem(await admin("DELETE", "/environments/no-such-env"), 404, "environment_not_found");
  });
});
