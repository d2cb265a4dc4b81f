// What an Inbox session may write of the profile a browser sends (issue 31, item 1): a missing
// subscriber is made from it; an existing one is changed only with `sessionProfileWrites: "always"`.
import { describe, expect, it } from "vitest";
import type { EventList } from "../../src/features/events/schemas";
import type { SubscriberActivityPage } from "../../src/features/subscribers/activity-schemas";
import type { Subscriber } from "../../src/features/subscribers/schemas";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";
import { startSession } from "./inbox-client";

const ZURICH = {
  email: "ada@example.com",
  phone: "+41791234567",
  firstName: "Ada",
  locale: "de-CH",
  timezone: "Europe/Zurich",
  data: { plan: "pro", seats: 3 },
};
/** What a New York browser (or an end user with the devtools open) sends with its session. */
const TAMPERED = {
  email: "attacker@example.net",
  phone: "+19005550100",
  firstName: "Eve",
  locale: "en-US",
  timezone: "America/New_York",
  data: { plan: "enterprise" },
};

const subscriberOf = async (key: string, subscriberId: string) =>
  (await api<Subscriber>(key, "GET", `/v1/subscribers/${subscriberId}`)).body;
const timelineOf = async (key: string, subscriberId: string) =>
  (await api<SubscriberActivityPage>(key, "GET", `/v1/subscribers/${subscriberId}/activity`)).body.data;
const eventsOf = async (key: string, type: string, subscriberId: string) =>
  (await api<EventList>(key, "GET", `/v1/events?type=${type}&limit=100`)).body.data
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.subscriberId === subscriberId);

async function existing(key: string) {
  const subscriberId = unique("sub");
  expect((await api(key, "POST", "/v1/subscribers", { subscriberId, ...ZURICH })).status).toBe(201);
  return { subscriberId, before: await subscriberOf(key, subscriberId) };
}

describe("an Inbox session, with sessionProfileWrites create_only (the default)", () => {
  it("creates a missing subscriber with the profile sent, recorded with reason inbox", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId, ZURICH);
    expect(await subscriberOf(key, subscriberId)).toMatchObject({ subscriberId, ...ZURICH });
    expect(await timelineOf(key, subscriberId)).toEqual([expect.objectContaining({ type: "created", reason: "inbox" })]);
    expect(await eventsOf(key, "subscriber.created", subscriberId)).toEqual([{ subscriberId, reason: "inbox" }]);
  });

  it("never changes an existing subscriber's email, phone, data, locale, time zone or name", async () => {
    const { key } = await createEnvironment();
    const { subscriberId, before } = await existing(key);
    await startSession(key, subscriberId, TAMPERED);
    expect(await subscriberOf(key, subscriberId)).toEqual(before);
  });

  it("writes no timeline entry and emits no subscriber.updated for an existing subscriber", async () => {
    const { key } = await createEnvironment();
    const { subscriberId } = await existing(key);
    await startSession(key, subscriberId, TAMPERED);
    await startSession(key, subscriberId, ZURICH);
    expect((await timelineOf(key, subscriberId)).map((e) => e.type)).toEqual(["created"]);
    expect(await eventsOf(key, "subscriber.updated", subscriberId)).toEqual([]);
  });

  it("still refuses a profile that does not validate, with the field's path", async () => {
    const { key } = await createEnvironment();
    const { subscriberId } = await existing(key);
    await expect(startSession(key, subscriberId, { email: "not-an-email" })).rejects.toThrow(/422.*email/);
  });
});

describe("an Inbox session, with sessionProfileWrites always", () => {
  const always = async () => {
    const environment = await createEnvironment();
    const res = await api(environment.key, "PATCH", "/v1/in-app/settings", { sessionProfileWrites: "always" });
    expect(res.status).toBe(200);
    return environment;
  };

  it("writes nothing when the profile sent is the stored one", async () => {
    const { key } = await always();
    const { subscriberId, before } = await existing(key);
    await startSession(key, subscriberId, { ...ZURICH, data: { seats: 3, plan: "pro" } });
    expect(await subscriberOf(key, subscriberId)).toEqual(before);
    expect((await timelineOf(key, subscriberId)).map((e) => e.type)).toEqual(["created"]);
    expect(await eventsOf(key, "subscriber.updated", subscriberId)).toEqual([]);
  });

  it("changes the fields that differ, recorded on the timeline and in subscriber.updated with reason inbox", async () => {
    const { key } = await always();
    const { subscriberId, before } = await existing(key);
    await startSession(key, subscriberId, { ...ZURICH, timezone: "America/New_York" });
    expect(await subscriberOf(key, subscriberId)).toMatchObject({ ...before, timezone: "America/New_York", updatedAt: expect.any(String) });
    const [latest] = await timelineOf(key, subscriberId);
    expect(latest).toMatchObject({ type: "updated", reason: "inbox" });
    expect(await eventsOf(key, "subscriber.updated", subscriberId)).toEqual([{ subscriberId, reason: "inbox" }]);
  });
});
