import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import { webhookEndpoints } from "../../../src/db/schema";
import type { EventType } from "../../../src/contract/event-types";
import { eventRow, eventStatements } from "../../../src/features/events/record";
import type {
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointSecret,
} from "../../../src/features/events/endpoints/schemas";
import worker from "../../../src/index";
import { createEnvironment, fakeProviderScenario } from "../../factories";
import { api, expectProblem } from "../../request";
import { holdWebhooks } from "../../webhook-queue";

let key: string;
let environmentId: string;
let slug: string;

beforeAll(async () => {
  ({ key, id: environmentId, slug } = await createEnvironment());
});

type Captured = Awaited<ReturnType<ReturnType<typeof fakeProviderScenario>["captured"]>>[number];

/** What a receiver does with `standardwebhooks`: throws unless a signature in the header verifies with `secret`. */
const verified = (secret: string, request: Captured) =>
  new Webhook(secret).verify(request.body, request.headers) as Record<string, unknown>;

async function receiverEndpoint(body: Record<string, unknown> = {}) {
  const receiver = fakeProviderScenario();
  const res = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/events`, ...body });
  if (res.status !== 201) throw new Error(`endpoint not created: ${res.status}`);
  return { receiver, endpoint: res.body };
}

/** An event written as an emitter writes it (no dispatch), to deliver by hand. */
async function storedEvent(type: EventType = "subscriber.deleted", data: Record<string, unknown> = { subscriberId: "user-1" }) {
  const row = eventRow(environmentId, type, data);
  const db = createDb(env.DB);
  await db.batch([eventStatements(db, [row])[0]!]);
  return row;
}

/** Runs the webhook consumer over one delivery job, as the Queue does on try number `attempts`. */
async function deliverOnce(eventId: string, endpointId: string, attempts: number) {
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

describe("POST /v1/webhook-endpoints/{id}/test", () => {
  it("sends a webhook.test event that standardwebhooks verifies, and answers with the attempt", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    const res = await api<WebhookAttempt>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "succeeded",
      responseStatus: 200,
      attempt: 1,
      eventType: "webhook.test",
      nextAttemptAt: null,
    });
    const [request] = await receiver.captured();
    const payload = verified(endpoint.secret, request!);
    expect(payload).toEqual({
      id: res.body.eventId,
      type: "webhook.test",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      environment: slug,
      data: { endpointId: endpoint.id },
    });
    expect(request!.headers["webhook-id"]).toBe(res.body.eventId);
    expect(res.body.eventId).toMatch(/^evt_/);
  });

  it("reports a failed test without retrying it", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 503, body: "down" }]);
    const res = await api<WebhookAttempt>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/test`);
    expect(res.body).toMatchObject({ status: "failed", responseStatus: 503, nextAttemptAt: null });
    expect(res.body.error).toContain("503");
  });

  it("answers 404 for an unknown endpoint", async () => {
    expectProblem(await api(key, "POST", "/v1/webhook-endpoints/ep_nope/test"), 404, "webhook_endpoint_not_found");
  });
});

describe("delivery from the Queue", () => {
  it("retries a 500 on the Svix schedule with the same webhook-id, and the retry verifies", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 500 }, { status: 200 }]);
    const event = await storedEvent();

    const first = await deliverOnce(event.id, endpoint.id, 1);
    expect(first.retryMessages).toHaveLength(1);
    const second = await deliverOnce(event.id, endpoint.id, 2);
    expect(second.explicitAcks).toHaveLength(1);
    expect(second.retryMessages).toEqual([]);

    const requests = await receiver.captured();
    expect(requests.map((r) => r.headers["webhook-id"])).toEqual([event.id, event.id]);
    expect(requests[0]!.body).toBe(requests[1]!.body);
    expect(verified(endpoint.secret, requests[1]!)).toMatchObject({
      id: event.id,
      type: "subscriber.deleted",
      data: { subscriberId: "user-1" },
    });

    const attempts = await api<{ data: WebhookAttempt[] }>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`);
    expect(attempts.body.data.map((a) => [a.attempt, a.status, a.responseStatus])).toEqual([
      [2, "succeeded", 200],
      [1, "failed", 500],
    ]);
    expect(attempts.body.data[1]!.nextAttemptAt).not.toBeNull();
  });

  it.each([
    [1, 5],
    [2, 300],
    [3, 1800],
    [4, 7200],
    [5, 18000],
    [6, 36000],
    [7, 36000],
  ])("waits as Svix does after failed attempt %i: %i s", async (attempt, delaySeconds) => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 429 }]);
    const result = await deliverOnce((await storedEvent()).id, endpoint.id, attempt);
    expect(result.retryMessages).toHaveLength(1);
    const [logged] = (await api<{ data: WebhookAttempt[] }>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`)).body.data;
    expect(Date.parse(logged!.nextAttemptAt!) - Date.parse(logged!.createdAt)).toBe(delaySeconds * 1000);
  });

  it("stops after the eighth attempt, and does not retry a 400", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 500 }]);
    const last = await deliverOnce((await storedEvent()).id, endpoint.id, 8);
    expect(last.retryMessages).toEqual([]);
    expect(last.explicitAcks).toHaveLength(1);
    await receiver.script([{ status: 400 }]);
    const refused = await deliverOnce((await storedEvent()).id, endpoint.id, 1);
    expect(refused.retryMessages).toEqual([]);
  });

  it("turns the endpoint off at once on 410 Gone", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 410 }]);
    const result = await deliverOnce((await storedEvent()).id, endpoint.id, 1);
    expect(result.retryMessages).toEqual([]);
    const read = await api<WebhookEndpoint>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.body).toMatchObject({ enabled: false, disabledReason: "gone" });
    // Off: a later delivery of another event sends nothing.
    await deliverOnce((await storedEvent()).id, endpoint.id, 1);
    expect(await receiver.captured()).toHaveLength(1);
  });

  it("delivers a batch's jobs together, and announces an endpoint that two of them found gone once", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    await receiver.script([{ status: 410 }]);
    const [first, second] = [await storedEvent(), await storedEvent()];
    const batch = createMessageBatch(
      "clarion-webhooks",
      [first!, second!].map((event, i) => ({
        id: `gone-${i}-${crypto.randomUUID()}`,
        timestamp: new Date(),
        attempts: 1,
        body: { type: "deliver", environmentId, eventId: event.id, endpointId: endpoint.id },
      })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toHaveLength(2);
    expect(await receiver.captured()).toHaveLength(2);
    const announced = await env.DB.prepare(
      "SELECT count(*) AS n FROM events WHERE type = 'endpoint.disabled' AND json_extract(data, '$.endpointId') = ?",
    )
      .bind(endpoint.id)
      .first<{ n: number }>();
    expect(announced?.n).toBe(1);
    const attempts = await api<{ data: WebhookAttempt[] }>(key, "GET", `/v1/webhook-endpoints/${endpoint.id}/attempts`);
    expect(attempts.body.data.map((a) => a.responseStatus)).toEqual([410, 410]);
  });

  it("turns off an endpoint failing for five days and tells the other endpoints with endpoint.disabled", async () => {
    const { key: own, id: ownId } = await createEnvironment();
    const failing = fakeProviderScenario();
    const watcher = fakeProviderScenario();
    const bad = await api<WebhookEndpointCreated>(own, "POST", "/v1/webhook-endpoints", { url: `${failing.baseUrl}/x` });
    const good = await api<WebhookEndpointCreated>(own, "POST", "/v1/webhook-endpoints", {
      url: `${watcher.baseUrl}/x`,
      events: ["endpoint.disabled"],
    });
    await failing.script([{ status: 503 }]);
    await createDb(env.DB)
      .update(webhookEndpoints)
      .set({ failingSince: new Date(Date.now() - 5 * 24 * 3_600_000 - 1000) })
      .where(eq(webhookEndpoints.id, bad.body.id));
    const event = eventRow(ownId, "subscriber.created", { subscriberId: "s" });
    const db = createDb(env.DB);
    await db.batch([eventStatements(db, [event])[0]!]);
    const batch = createMessageBatch("clarion-webhooks", [
      {
        id: "five-days",
        timestamp: new Date(),
        attempts: 3,
        body: { type: "deliver", environmentId: ownId, eventId: event.id, endpointId: bad.body.id },
      },
    ]);
    const hooks = holdWebhooks();
    expect((await hooks.consume("clarion-webhooks", batch)).retryMessages).toEqual([]);
    expect((await api<WebhookEndpoint>(own, "GET", `/v1/webhook-endpoints/${bad.body.id}`)).body).toMatchObject({
      enabled: false,
      disabledReason: "failing",
    });
    // The endpoint.disabled event, dispatched and delivered as the Queue would.
    await hooks.drain();
    const [notice] = await watcher.captured();
    expect(verified(good.body.secret, notice!)).toMatchObject({
      type: "endpoint.disabled",
      data: { endpointId: bad.body.id, reason: "failing" },
    });
    expect(await failing.captured()).toHaveLength(1);
  });

  it("announces an endpoint saved with credentials in its URL without them", async () => {
    const { key: own, id: ownId } = await createEnvironment();
    const failing = fakeProviderScenario();
    const bad = await api<WebhookEndpointCreated>(own, "POST", "/v1/webhook-endpoints", { url: `${failing.baseUrl}/x` });
    await failing.script([{ status: 503 }]);
    // Saved before credentials in URLs were refused.
    const withCredentials = `${failing.baseUrl.replace("://", "://user:s3cr3t@")}/x`;
    await createDb(env.DB)
      .update(webhookEndpoints)
      .set({ url: withCredentials, failingSince: new Date(Date.now() - 5 * 24 * 3_600_000 - 1000) })
      .where(eq(webhookEndpoints.id, bad.body.id));
    const event = eventRow(ownId, "subscriber.created", { subscriberId: "s" });
    const db = createDb(env.DB);
    await db.batch([eventStatements(db, [event])[0]!]);
    const batch = createMessageBatch("clarion-webhooks", [
      {
        id: "credentials",
        timestamp: new Date(),
        attempts: 3,
        body: { type: "deliver", environmentId: ownId, eventId: event.id, endpointId: bad.body.id },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    await getQueueResult(batch, ctx);
    const notice = await env.DB.prepare(
      "SELECT data FROM events WHERE type = 'endpoint.disabled' AND json_extract(data, '$.endpointId') = ?",
    )
      .bind(bad.body.id)
      .first<{ data: string }>();
    expect(notice).not.toBeNull();
    expect(notice!.data).not.toContain("s3cr3t");
    expect(JSON.parse(notice!.data).url).toContain("user:***@");
  });

  it("signs with both secrets during a rotation's overlap, so either verifies", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    const rotated = await api<WebhookEndpointSecret>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      overlapHours: 1,
    });
    await deliverOnce((await storedEvent()).id, endpoint.id, 1);
    const [request] = await receiver.captured();
    expect(request!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verified(endpoint.secret, request!)).toMatchObject({ type: "subscriber.deleted" });
    expect(verified(rotated.body.secret, request!)).toMatchObject({ type: "subscriber.deleted" });
    expect(() => verified(`whsec_${btoa("another secret of 24 bytes!")}`, request!)).toThrow();
  });

  it("signs with the new secret alone once the overlap is over", async () => {
    const { receiver, endpoint } = await receiverEndpoint();
    const rotated = await api<WebhookEndpointSecret>(key, "POST", `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      overlapHours: 0,
    });
    await deliverOnce((await storedEvent()).id, endpoint.id, 1);
    const [request] = await receiver.captured();
    expect(verified(rotated.body.secret, request!)).toMatchObject({ type: "subscriber.deleted" });
    expect(() => verified(endpoint.secret, request!)).toThrow();
  });

  it("dispatches an event only to the endpoints that take its type", async () => {
    const { key: own, id: ownId } = await createEnvironment();
    const all = fakeProviderScenario();
    const onlyFailed = fakeProviderScenario();
    const off = fakeProviderScenario();
    const a = await api<WebhookEndpointCreated>(own, "POST", "/v1/webhook-endpoints", { url: `${all.baseUrl}/x` });
    await api(own, "POST", "/v1/webhook-endpoints", { url: `${onlyFailed.baseUrl}/x`, events: ["message.failed"] });
    await api(own, "POST", "/v1/webhook-endpoints", { url: `${off.baseUrl}/x`, enabled: false });
    const event = eventRow(ownId, "subscriber.updated", { subscriberId: "s" });
    const db = createDb(env.DB);
    await db.batch([eventStatements(db, [event])[0]!]);
    const batch = createMessageBatch("clarion-webhooks", [
      { id: "dispatch", timestamp: new Date(), attempts: 1, body: { type: "dispatch", environmentId: ownId, eventIds: [event.id] } },
    ]);
    const hooks = holdWebhooks();
    expect((await hooks.consume("clarion-webhooks", batch)).explicitAcks).toEqual(["dispatch"]);
    await hooks.drain();
    const [request] = await all.captured();
    expect(verified(a.body.secret, request!)).toMatchObject({ id: event.id, type: "subscriber.updated" });
    expect(await onlyFailed.captured()).toEqual([]);
    expect(await off.captured()).toEqual([]);
  });
});
