import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { subscriberActivity, suppressions } from "../../src/db/schema";
import type { EventList } from "../../src/features/events/schemas";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import { createEnvironment, unique } from "../factories";
import { api, expectProblem } from "../request";

const activity = async (key: string, subscriberId: string, query = "") =>
  (await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity${query}`)).body;

async function subscriber(email = "ada@example.com") {
  const environment = await createEnvironment();
  const subscriberId = unique("s");
  expect((await api(environment.key, "POST", "/sub", { subscriberId, email })).status).toBe(201);
  return { ...environment, subscriberId };
}

describe("GET /v1/subscribers/{subscriberId}/activity", () => {
  it("lists profile writes and preference changes newest first, each change with reason api and only what changed", async () => {
    const { key, subscriberId } = await subscriber();
    await api(key, "POST", "/sub", { subscriberId, firstName: "Ada" });
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { sms: false } });
    // email was already on: only the workflow's flag changed.
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, {
      channels: { email: true },
      workflows: { digest: { push: false } },
    });

    const page = await activity(key, subscriberId);
    expect(page.data.map((e) => [e.type, e.reason, e.preferences])).toEqual([
      ["preferences_changed", "api", { workflows: { digest: { push: false } } }],
      ["preferences_changed", "api", { channels: { sms: false } }],
      ["updated", null, null],
      ["created", null, null],
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it("records nothing, and emits nothing, for an update that changes nothing", async () => {
    const { key, subscriberId } = await subscriber();
    const res = await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { email: true } });
    expect(res.status).toBe(200);
    expect((await activity(key, subscriberId)).data.map((e) => e.type)).toEqual(["created"]);
    const events = await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated");
    expect(events.body.data).toEqual([]);
  });

  it("emits subscriber.updated with the changed preferences and the reason, never an address", async () => {
    const { key, subscriberId } = await subscriber();
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { workflows: { news: { email: false } } });
    const events = await api<EventList>(key, "GET", "/v1/events?type=subscriber.updated");
    expect(events.body.data.map((e) => e.data)).toEqual([
      { subscriberId, reason: "api", preferences: { workflows: { news: { email: false } } } },
    ]);
    expect(JSON.stringify(events.body)).not.toContain("ada@example.com");
  });

  it("records both of two concurrent changes of different flags, each as applied", async () => {
    const { key, subscriberId } = await subscriber();
    const put = (body: unknown) => api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, body);
    const results = await Promise.all([
      put({ channels: { sms: false } }),
      put({ channels: { push: false } }),
      put({ channels: { chat: false } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const changes = (await activity(key, subscriberId)).data.filter((e) => e.type === "preferences_changed");
    expect(changes.map((e) => e.preferences).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { channels: { chat: false } },
      { channels: { push: false } },
      { channels: { sms: false } },
    ]);
    const stored = await api<{ channels: Record<string, boolean> }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(stored.body.channels).toMatchObject({ sms: false, push: false, chat: false, email: true });
  });

  it("shows the suppressions of the subscriber's addresses, and only theirs", async () => {
    const { id, key, subscriberId } = await subscriber("Ada@Example.com");
    const at = new Date(Date.now() + 1000);
    await createDb(env.DB)
      .insert(suppressions)
      .values([
        { environmentId: id, address: "ada@example.com", channel: "email", reason: "hard_bounce", createdAt: at },
        { environmentId: id, address: "bob@example.com", channel: "email", reason: "complaint", createdAt: at },
      ]);
    const [first] = (await activity(key, subscriberId)).data;
    expect(first).toMatchObject({ type: "suppressed", reason: "hard_bounce", channel: "email", createdAt: at.toISOString() });
    expect(first!.id).toMatch(/^sup_\d+$/);
    expect((await activity(key, subscriberId)).data).toHaveLength(2);
  });

  it("pages with nextCursor until every entry is seen once", async () => {
    const { key, subscriberId } = await subscriber();
    for (const ch of ["sms", "push", "chat"])
      await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { [ch]: false } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: SubscriberActivityPage = await activity(key, subscriberId, `?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.data).toHaveLength(1);
      seen.push(page.data[0]!.id);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await activity(key, subscriberId)).data.map((e) => e.id));
    expect(seen).toHaveLength(4);
  });

  it.each(["nope", btoa("a:12:DROP TABLE"), "x".repeat(201)])("refuses the cursor %s with 422", async (cursor) => {
    const { key, subscriberId } = await subscriber();
    expectProblem(
      await api(key, "GET", `/v1/subscribers/${subscriberId}/activity?cursor=${encodeURIComponent(cursor)}`),
      422,
      "validation_failed",
    );
  });

  it("answers 404 for an unknown subscriber, and for one of another environment", async () => {
    const { subscriberId } = await subscriber();
    const other = await createEnvironment();
    expectProblem(await api(other.key, "GET", `/v1/subscribers/${subscriberId}/activity`), 404, "subscriber_not_found");
  });

  it("is deleted by erasure", async () => {
    const { id, key, subscriberId } = await subscriber();
    await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { sms: false } });
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    const rows = await createDb(env.DB).select().from(subscriberActivity);
    expect(rows.filter((r) => r.environmentId === id)).toEqual([]);
  });
});
