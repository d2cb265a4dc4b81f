import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { events, webhookAttempts, webhookEndpoints } from "../../src/db/schema";
import { eventRow } from "../../src/features/events/record";
import { STRANDED_AFTER_MS } from "../../src/features/events/endpoints/sweep";
import type { EventList } from "../../src/features/events/schemas";
import type { WebhookAttempt, WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import type { EventType } from "../../src/contract/event-types";
import worker from "../../src/index";
import { createEnvironment, fakeProviderScenario, unique } from "../factories";
import { api, expectProblem } from "../request";
import { holdWebhooks } from "../webhook-queue";

/** An environment with one endpoint on a fresh receiver; `events` filters its types. Its webhook Queue is held (`hooks`). */
async function setUp(events?: string[]) {
  const environment = await createEnvironment();
  const receiver = fakeProviderScenario();
  const res = await api<WebhookEndpointCreated>(environment.key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/e`, events });
  return { ...environment, receiver, endpoint: res.body, hooks: holdWebhooks() };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/** Delivers what the webhook Queue holds, then answers what the receiver got (at least `count`), verified. */
async function payloads({ hooks, receiver, endpoint }: Setup, count: number) {
  await hooks.drain();
  const got = await receiver.captured();
  expect(got.length).toBeGreaterThanOrEqual(count);
  return got.map(
    (r) => new Webhook(endpoint.secret).verify(r.body, r.headers) as { id: string; type: string; data: Record<string, unknown> },
  );
}

describe("subscriber events", () => {
  it("sends subscriber.created, subscriber.updated and subscriber.deleted, each once, and logs them in /v1/events", async () => {
    const setup = await setUp();
    const { key, hooks } = setup;
    const subscriberId = unique("sub");
    expect((await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" }, { via: hooks })).status).toBe(201);
    await payloads(setup, 1);
    expect((await api(key, "POST", "/sub", { subscriberId, firstName: "Ada" }, { via: hooks })).status).toBe(200);
    await payloads(setup, 2);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`, undefined, { via: hooks })).status).toBe(200);
    const received = await payloads(setup, 3);
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
    const setup = await setUp(["subscriber.created"]);
    const ids = [unique("a"), unique("b"), unique("c")];
    const res = await api(
      setup.key,
      "POST",
      "/sub/bulk",
      { subscribers: ids.map((subscriberId) => ({ subscriberId })) },
      { via: setup.hooks },
    );
    expect(res.status).toBe(200);
    const received = await payloads(setup, 3);
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
    const { key, id, receiver, endpoint, hooks } = await setUp();
    await receiver.script([{ status: 400 }]);
    const since = new Date(Date.now() - 1000).toISOString();
    await api(key, "POST", "/sub", { subscriberId: unique("s") }, { via: hooks });
    // The Queue would retry the refused delivery later; the replay comes first.
    await hooks.drain();
    const [refused] = await receiver.captured();
    expect(refused).toBeDefined();
    await receiver.script([{ status: 200 }]);

    const replay = await api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since }, { via: hooks });
    expect(replay.status).toBe(202);
    expect(replay.body.queued).toBe(1);
    await hooks.drain();
    const requests = await receiver.captured();
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers["webhook-id"]).toBe(refused!.headers["webhook-id"]);
    expect(requests[1]!.body).toBe(refused!.body);

    // Delivered now: a second replay of failures finds nothing, one of everything finds it again.
    const again = await api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since }, { via: hooks });
    expect(again.body.queued).toBe(0);
    const all = await api<{ queued: number }>(
      key,
      "POST",
      `/v1/webhook-endpoints/${endpoint.id}/replay`,
      { since, onlyFailed: false },
      { via: hooks },
    );
    expect(all.body.queued).toBe(1);
    expect(id).toMatch(/^env_/);
  });

  it("resends one event to every endpoint that takes it", async () => {
    const setup = await setUp(["subscriber.created"]);
    const { key, id, hooks } = setup;
    await api(key, "POST", "/sub", { subscriberId: unique("s") }, { via: hooks });
    const [first] = await payloads(setup, 1);
    const res = await api<{ queued: number }>(key, "POST", `/v1/events/${first!.id}/resend`, undefined, { via: hooks });
    expect(res).toMatchObject({ status: 202, body: { queued: 1 } });
    const both = await payloads(setup, 2);
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

/** An event written as emitters write it, already dispatched (the cron leaves it alone), at `createdAt`. */
async function dispatchedEvent(
  environmentId: string,
  type: EventType,
  createdAt = new Date(),
  data: Record<string, unknown> = { subscriberId: unique("s") },
) {
  const row = { ...eventRow(environmentId, type, data), createdAt, dispatchedAt: createdAt };
  await createDb(env.DB).insert(events).values(row);
  return row;
}

/** Attempts logged for an event at an endpoint, oldest first, a second apart. */
async function loggedAttempts(
  environmentId: string,
  endpointId: string,
  event: { id: string; type: EventType; createdAt: Date },
  statuses: ("succeeded" | "failed")[],
) {
  if (statuses.length === 0) return;
  await createDb(env.DB)
    .insert(webhookAttempts)
    .values(
      statuses.map((status, i) => ({
        id: `att_${crypto.randomUUID().replaceAll("-", "")}`,
        environmentId,
        endpointId,
        eventId: event.id,
        eventType: event.type,
        attempt: i + 1,
        status,
        responseStatus: status === "succeeded" ? 200 : 400,
        latencyMs: 5,
        error: null,
        nextAttemptAt: null,
        createdAt: new Date(event.createdAt.getTime() + (i + 1) * 1000),
      })),
    );
}

/** Runs the webhook consumer over one delivery job, as the Queue does on try number `attempts`. */
async function deliverOnce(environmentId: string, eventId: string, endpointId: string, attempts: number) {
  const batch = createMessageBatch("clarion-webhooks", [
    {
      id: `m-${attempts}-${crypto.randomUUID()}`,
      timestamp: new Date(),
      attempts,
      body: { type: "deliver", environmentId, eventId, endpointId },
    },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

describe("POST /v1/webhook-endpoints/{id}/replay", () => {
  it("replays only the events meant for the endpoint (since it exists, of its types) whose last attempt there failed", async () => {
    const setup = await setUp(["subscriber.created", "webhook.test"]);
    const { key, id, endpoint, hooks } = setup;
    // The endpoint was made ten minutes ago: its events (and their attempts) all lie in the past.
    const created = new Date(Date.now() - 10 * 60_000);
    await createDb(env.DB).update(webhookEndpoints).set({ createdAt: created }).where(eq(webhookEndpoints.id, endpoint.id));
    const later = (seconds: number) => new Date(created.getTime() + seconds * 1000);
    const cases = {
      beforeEndpoint: [await dispatchedEvent(id, "subscriber.created", new Date(created.getTime() - 60_000)), ["failed"]],
      otherType: [await dispatchedEvent(id, "subscriber.updated", later(1)), ["failed"]],
      otherEndpointsTest: [await dispatchedEvent(id, "webhook.test", later(2), { endpointId: "ep_other" }), []],
      ownTest: [await dispatchedEvent(id, "webhook.test", later(2), { endpointId: endpoint.id }), ["failed"]],
      delivered: [await dispatchedEvent(id, "subscriber.created", later(3)), ["failed", "succeeded"]],
      neverTried: [await dispatchedEvent(id, "subscriber.created", later(4)), []],
      failed: [await dispatchedEvent(id, "subscriber.created", later(5)), ["failed"]],
      failedAgain: [await dispatchedEvent(id, "subscriber.created", later(6)), ["succeeded", "failed"]],
    } as const;
    for (const [event, statuses] of Object.values(cases)) await loggedAttempts(id, endpoint.id, event, [...statuses]);
    const since = new Date(created.getTime() - 3_600_000).toISOString();
    const replay = (body: Record<string, unknown>) =>
      api<{ queued: number }>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/replay`, { since, ...body }, { via: hooks });

    expect((await replay({})).body.queued).toBe(3);
    const received = await payloads(setup, 3);
    expect(received.map((p) => p.id).sort()).toEqual([cases.ownTest[0].id, cases.failed[0].id, cases.failedAgain[0].id].sort());

    // Everything meant for it, failed or not; still nothing from before it existed, of another type, or another endpoint's test.
    expect((await replay({ onlyFailed: false })).body.queued).toBe(5);
    const all = await payloads(setup, 8);
    expect(new Set(all.slice(3).map((p) => p.id))).toEqual(
      new Set([cases.ownTest[0].id, cases.delivered[0].id, cases.neverTried[0].id, cases.failed[0].id, cases.failedAgain[0].id]),
    );
  });

  it("cancels the replayed event's pending retry, so the receiver gets it once more, not twice", async () => {
    const setup = await setUp();
    const { key, id, receiver, endpoint, hooks } = setup;
    await receiver.script([{ status: 500 }, { status: 200 }, { status: 200 }]);
    const event = await dispatchedEvent(id, "subscriber.created");
    // The first try fails: the Queue holds a retry (5 s on).
    expect((await deliverOnce(id, event.id, endpoint.id, 1)).retryMessages).toHaveLength(1);

    const replay = await api<{ queued: number }>(
      key,
      "POST",
      `/v1/webhook-endpoints/${endpoint.id}/replay`,
      { since: new Date(Date.now() - 60_000).toISOString() },
      { via: hooks },
    );
    expect(replay.body.queued).toBe(1);
    const [, replayed] = await payloads(setup, 2);
    expect(replayed!.id).toBe(event.id);
    const settled = await api<{ data: WebhookAttempt[] }>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`);
    expect(settled.body.data[0]?.status).toBe("succeeded");

    // The retry comes due: its delivery was settled by the replay, so it is acked without a send.
    const retry = await deliverOnce(id, event.id, endpoint.id, 2);
    expect(retry.explicitAcks).toHaveLength(1);
    expect(retry.retryMessages).toEqual([]);
    const requests = await receiver.captured();
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.headers["webhook-id"])).toEqual([event.id, event.id]);
    const attempts = await api<{ data: WebhookAttempt[] }>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`);
    expect(attempts.body.data.map((a) => [a.status, a.nextAttemptAt])).toEqual([
      ["succeeded", null],
      ["failed", null],
    ]);
  });

  it("still makes a retry whose delivery nothing settled", async () => {
    const { id, receiver, endpoint } = await setUp();
    await receiver.script([{ status: 500 }, { status: 200 }]);
    const event = await dispatchedEvent(id, "subscriber.created");
    expect((await deliverOnce(id, event.id, endpoint.id, 1)).retryMessages).toHaveLength(1);
    expect((await deliverOnce(id, event.id, endpoint.id, 2)).explicitAcks).toHaveLength(1);
    expect((await receiver.captured()).map((r) => r.headers["webhook-id"])).toEqual([event.id, event.id]);
  });
});

describe("crash safety", () => {
  it("dispatches from the cron an event whose dispatch was lost between the write and the Queue send", async () => {
    const setup = await setUp();
    const { id, receiver, hooks } = setup;
    const lost = { ...eventRow(id, "subscriber.created", { subscriberId: "lost" }), createdAt: new Date(Date.now() - 5 * 60_000) };
    const fresh = eventRow(id, "subscriber.created", { subscriberId: "in-flight" });
    await createDb(env.DB).insert(events).values([lost, fresh]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), hooks.env);
    const [payload] = await payloads(setup, 1);
    expect(payload).toMatchObject({ id: lost.id, data: { subscriberId: "lost" } });
    const [again] = await createDb(env.DB).select().from(events).where(eq(events.id, lost.id));
    expect(again?.dispatchedAt).toBeTruthy();
    // The young one may still be on its way through its own dispatch: the cron leaves it alone.
    expect((await receiver.captured()).length).toBe(1);
  });
  it("queues again from the cron a delivery whose Queue message was lost, and leaves settled or scheduled ones alone", async () => {
    const setup = await setUp();
    const { id, receiver, endpoint, hooks } = setup;
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
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), hooks.env);
    const [payload] = await payloads(setup, 1);
    expect(payload).toMatchObject({ id: lost.id, data: { subscriberId: "lost" } });
    // Delivered now: the next run finds nothing to queue.
    const [row] = await createDb(env.DB).select().from(webhookAttempts).where(eq(webhookAttempts.eventId, lost.id));
    expect(row?.status).toBe("succeeded");
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/10 * * * *" }), hooks.env);
    await hooks.drain();
    expect((await receiver.captured()).length).toBe(1);
  });
});
