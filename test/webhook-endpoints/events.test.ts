import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { events, webhookAttempts, webhookEndpoints } from "../../src/db/schema";
import { eventRow, STRANDED_AFTER_MS } from "../../src/features/events/record";
import type { EventList } from "../../src/features/events/schemas";
import type { WebhookEndpointCreated } from "../../src/features/webhook-endpoints/schemas";
import worker from "../../src/index";
import { createEnvironment, fakeProviderScenario, unique } from "../factories";
import { api, eventually, expectProblem } from "../request";

/** An environment with one endpoint on a fresh receiver; `events` filters its types. */
async function setUp(events?: string[]) {
  const environment = await createEnvironment();
  const receiver = fakeProviderScenario();
  const res = await api<WebhookEndpointCreated>(environment.key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/e`, events });
  return { ...environment, receiver, endpoint: res.body };
}

const payloads = async (receiver: ReturnType<typeof fakeProviderScenario>, secret: string, count: number) =>
  eventually(async () => {
    const got = await receiver.captured();
    return got.length >= count
      ? got.map((r) => new Webhook(secret).verify(r.body, r.headers) as { id: string; type: string; data: Record<string, unknown> })
      : null;
  });

describe("subscriber events", () => {
  it("sends subscriber.created, subscriber.updated and subscriber.deleted, each once, and logs them in /v1/events", async () => {
    const { key, receiver, endpoint } = await setUp();
    const subscriberId = unique("sub");
    expect((await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" })).status).toBe(201);
    await payloads(receiver, endpoint.secret, 1);
    expect((await api(key, "POST", "/sub", { subscriberId, firstName: "Ada" })).status).toBe(200);
    await payloads(receiver, endpoint.secret, 2);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    const received = await payloads(receiver, endpoint.secret, 3);
    expect(received.map((p) => [p.type, p.data])).toEqual([
      ["subscriber.created", { subscriberId }],
      ["subscriber.updated", { subscriberId }],
      ["subscriber.deleted", { subscriberId }],
    ]);
    // Ids and states only: never the subscriber's address.
    expect(JSON.stringify(received)).not.toContain("ada@example.com");

    const log = await api<EventList>(key, "GET", "/v1/events");
    expect(log.body.data.map((e) => e.id)).toEqual(received.map((p) => p.id).reverse());
    const filtered = await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated");
    expect(filtered.body.data.map((e) => e.type)).toEqual(["subscriber.updated"]);
  });

  it("writes the events of a bulk upsert with one dispatch", async () => {
    const { key, receiver, endpoint } = await setUp(["subscriber.created"]);
    const ids = [unique("a"), unique("b"), unique("c")];
    const res = await api(key, "POST", "/sub/bulk", { subscribers: ids.map((subscriberId) => ({ subscriberId })) });
    expect(res.status).toBe(200);
    const received = await payloads(receiver, endpoint.secret, 3);
    expect(received.map((p) => p.data.subscriberId).sort()).toEqual([...ids].sort());
  });

  it("hides an environment's events from another", async () => {
    const a = await setUp();
    const b = await createEnvironment();
    await api(a.key, "POST", "/sub", { subscriberId: unique("s") });
    const [event] = (await api<EventList>(a.key, "GET", "/v1/events")).body.data;
    expect(event).toBeDefined();
    expect((await api<EventList>(b.key, "GET", "/v1/events")).body.data).toEqual([]);
    expectProblem(await api(b.key, "POST", `/v1/events/${event!.id}/resend`), 404, "event_not_found");
  });
});

describe("replay and resend", () => {
  it("replays the events that never reached the endpoint, with their original ids", async () => {
    const { key, id, receiver, endpoint } = await setUp();
    await receiver.script([{ status: 400 }]);
    const since = new Date(Date.now() - 1000).toISOString();
    await api(key, "POST", "/sub", { subscriberId: unique("s") });
    const [refused] = await eventually(async () => {
      const got = await receiver.captured();
      return got.length ? got : null;
    });
    await receiver.script([{ status: 200 }]);

    const replay = await api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since });
    expect(replay.status).toBe(202);
    expect(replay.body.queued).toBe(1);
    const requests = await eventually(async () => {
      const got = await receiver.captured();
      return got.length >= 2 ? got : null;
    });
    expect(requests[1]!.headers["webhook-id"]).toBe(refused!.headers["webhook-id"]);
    expect(requests[1]!.body).toBe(refused!.body);

    // Delivered now: a second replay of failures finds nothing, one of everything finds it again.
    await eventually(async () => {
      const again = await api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since });
      return again.body.queued === 0;
    });
    const all = await api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since, onlyFailed: false });
    expect(all.body.queued).toBe(1);
    expect(id).toMatch(/^env_/);
  });

  it("resends one event to every endpoint that takes it", async () => {
    const { key, id, receiver, endpoint } = await setUp(["subscriber.created"]);
    await api(key, "POST", "/sub", { subscriberId: unique("s") });
    const [first] = await payloads(receiver, endpoint.secret, 1);
    const res = await api<{ queued: number }>(key, "POST", `/v1/events/${first!.id}/resend`);
    expect(res).toMatchObject({ status: 202, body: { queued: 1 } });
    const both = await payloads(receiver, endpoint.secret, 2);
    expect(both.map((p) => p.id)).toEqual([first!.id, first!.id]);
    // The dispatch of an event already dispatched is harmless to run again (at least once).
    const batch = createMessageBatch("clarion-webhooks", [
      { id: "x", timestamp: new Date(), attempts: 1, body: { type: "dispatch", environmentId: id, eventIds: [first!.id] } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["x"]);
  });
});

describe("crash safety", () => {
  it("dispatches from the cron an event whose dispatch was lost between the write and the Queue send", async () => {
    const { id, receiver, endpoint } = await setUp();
    const lost = { ...eventRow(id, "subscriber.created", { subscriberId: "lost" }), createdAt: new Date(Date.now() - 5 * 60_000) };
    const fresh = eventRow(id, "subscriber.created", { subscriberId: "in-flight" });
    await createDb(env.DB).insert(events).values([lost, fresh]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), env);
    const [payload] = await payloads(receiver, endpoint.secret, 1);
    expect(payload).toMatchObject({ id: lost.id, data: { subscriberId: "lost" } });
    await eventually(async () => {
      const [again] = await createDb(env.DB).select().from(events).where(eq(events.id, lost.id));
      return again?.dispatchedAt;
    });
    // The young one may still be on its way through its own dispatch: the cron leaves it alone.
    expect((await receiver.captured()).length).toBe(1);
  });
  it("queues again from the cron a delivery whose Queue message was lost, and leaves settled or scheduled ones alone", async () => {
    const { id, receiver, endpoint } = await setUp();
    // Past the sweep's delay (STRANDED_AFTER_MS): a delivery queued more recently may still be waiting in a backlog.
    const old = new Date(Date.now() - 2 * STRANDED_AFTER_MS);
    // The endpoint existed, unchanged, when the events were dispatched: only then was it meant to get them.
    const before = new Date(Date.now() - 3 * STRANDED_AFTER_MS);
    await createDb(env.DB)
      .update(webhookEndpoints)
      .set({ createdAt: before, updatedAt: before })
      .where(eq(webhookEndpoints.id, endpoint.id));
    const dispatched = (subscriberId: string) => ({
      ...eventRow(id, "subscriber.created", { subscriberId }),
      createdAt: old,
      dispatchedAt: old,
    });
    const lost = dispatched("lost");
    const delivered = dispatched("delivered");
    const retrying = dispatched("retrying");
    await createDb(env.DB).insert(events).values([lost, delivered, retrying]);
    const attempt = (eventId: string, status: "succeeded" | "failed", nextAttemptAt: Date | null) => ({
      id: `att_${crypto.randomUUID().replaceAll("-", "")}`,
      environmentId: id,
      endpointId: endpoint.id,
      eventId,
      eventType: "subscriber.created" as const,
      attempt: 1,
      status,
      responseStatus: status === "succeeded" ? 200 : 500,
      latencyMs: 5,
      error: null,
      nextAttemptAt,
      createdAt: old,
    });
    await createDb(env.DB)
      .insert(webhookAttempts)
      .values([attempt(delivered.id, "succeeded", null), attempt(retrying.id, "failed", new Date(Date.now() + 60_000))]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), env);
    const [payload] = await payloads(receiver, endpoint.secret, 1);
    expect(payload).toMatchObject({ id: lost.id, data: { subscriberId: "lost" } });
    // Delivered now: the next run finds nothing to queue.
    await eventually(async () => {
      const [row] = await createDb(env.DB).select().from(webhookAttempts).where(eq(webhookAttempts.eventId, lost.id));
      return row?.status === "succeeded";
    });
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), env);
    expect((await receiver.captured()).length).toBe(1);
  });
});
