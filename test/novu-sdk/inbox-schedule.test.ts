// The Inbox's "Schedule" through `@novu/js` 3.19.2, unmodified, against a local Clarion: what the
// subscriber sets in the Inbox is their delivery schedule in Clarion, and holds their email.
import { createHmac } from "node:crypto";
import { type DefaultSchedule, Novu, type WeeklySchedule } from "@novu/js";
import { beforeAll, describe, expect, it } from "vitest";
import { clarion, eventually, novuBase, unique, workflow } from "./clarion";

interface Settings {
  applicationIdentifier: string;
  hmacSecret: string;
}

let settings: Settings;

beforeAll(async () => {
  settings = (await clarion<Settings>("GET", "/v1/in-app/settings")).body;
});

const inboxFor = (subscriberId: string, extra: { defaultSchedule?: DefaultSchedule; email?: string } = {}) =>
  new Novu({
    applicationIdentifier: settings.applicationIdentifier,
    subscriber: { subscriberId, ...(extra.email ? { email: extra.email } : {}) },
    subscriberHash: createHmac("sha256", settings.hmacSecret).update(subscriberId).digest("hex"),
    apiUrl: novuBase,
    useCache: false,
    ...(extra.defaultSchedule ? { defaultSchedule: extra.defaultSchedule } : {}),
  });

const storedSchedule = async (subscriberId: string) =>
  (await clarion<{ schedule: unknown }>("GET", `/v1/subscribers/${subscriberId}/preferences`)).body.schedule;

const WEEK: WeeklySchedule = {
  monday: { isEnabled: true, hours: [{ start: "09:00 AM", end: "05:00 PM" }] },
  tuesday: { isEnabled: true, hours: [{ start: "12:00 AM", end: "12:30 PM" }] },
  saturday: { isEnabled: false, hours: [{ start: "10:00 PM", end: "02:00 AM" }] },
};

describe("@novu/js preferences.schedule", () => {
  it("sets a schedule in the Inbox that a new session reads back and Clarion stores as the subscriber's", async () => {
    const subscriberId = unique("sched");
    const set = await inboxFor(subscriberId).preferences.schedule.update({ isEnabled: true, weeklySchedule: WEEK });
    expect(set.error).toBeUndefined();
    expect(set.data).toMatchObject({ isEnabled: true, weeklySchedule: WEEK });

    const again = inboxFor(subscriberId);
    const read = await again.preferences.schedule.get();
    expect(read.error).toBeUndefined();
    expect(read.data).toMatchObject({ isEnabled: true, weeklySchedule: WEEK });
    const list = await again.preferences.list();
    expect(list.data?.[0]?.schedule).toMatchObject({ isEnabled: true, weeklySchedule: WEEK });

    expect(await storedSchedule(subscriberId)).toEqual({
      enabled: true,
      days: {
        mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] },
        tue: { enabled: true, hours: [{ start: "00:00", end: "12:30" }] },
        sat: { enabled: false, hours: [{ start: "22:00", end: "02:00" }] },
      },
    });
  });

  it("turns the schedule off and keeps its days, as the Inbox's switch does", async () => {
    const subscriberId = unique("sched");
    const novu = inboxFor(subscriberId);
    await novu.preferences.schedule.update({ isEnabled: true, weeklySchedule: WEEK });
    const off = await novu.preferences.schedule.update({ isEnabled: false });
    expect(off.data).toMatchObject({ isEnabled: false, weeklySchedule: WEEK });
    expect((await inboxFor(subscriberId).preferences.schedule.get()).data).toMatchObject({ isEnabled: false, weeklySchedule: WEEK });
    expect(await storedSchedule(subscriberId)).toMatchObject({ enabled: false, days: { mon: { enabled: true } } });
  });

  it("answers a subscriber with no schedule as one turned off", async () => {
    const { data } = await inboxFor(unique("sched")).preferences.schedule.get();
    expect(data?.isEnabled).toBe(false);
    expect(data?.weeklySchedule).toBeUndefined();
  });

  it("refuses a time that is no time of day, and keeps the stored schedule", async () => {
    const subscriberId = unique("sched");
    const novu = inboxFor(subscriberId);
    await novu.preferences.schedule.update({ isEnabled: true, weeklySchedule: WEEK });
    const bad = await novu.preferences.schedule.update({
      weeklySchedule: { friday: { isEnabled: true, hours: [{ start: "25:00 PM", end: "05:00 PM" }] } },
    });
    expect((bad.error?.originalError as { status?: number } | undefined)?.status).toBe(422);
    expect(await storedSchedule(subscriberId)).toMatchObject({ enabled: true, days: { mon: { enabled: true } } });
  });
});

describe("@novu/js defaultSchedule", () => {
  it("gives a subscriber without a schedule the page's default, and never replaces one they have", async () => {
    const subscriberId = unique("sched");
    const defaultSchedule = {
      isEnabled: true,
      weeklySchedule: { friday: { isEnabled: true, hours: [{ start: "08:00 AM", end: "06:00 PM" }] } },
    };
    const first = await inboxFor(subscriberId, { defaultSchedule }).preferences.schedule.get();
    expect(first.data).toMatchObject(defaultSchedule);
    expect(await storedSchedule(subscriberId)).toEqual({
      enabled: true,
      days: { fri: { enabled: true, hours: [{ start: "08:00", end: "18:00" }] } },
    });

    await inboxFor(subscriberId).preferences.schedule.update({ isEnabled: true, weeklySchedule: WEEK });
    const later = await inboxFor(subscriberId, { defaultSchedule }).preferences.schedule.get();
    expect(later.data).toMatchObject({ isEnabled: true, weeklySchedule: WEEK });
    expect(later.data?.weeklySchedule?.friday).toBeUndefined();
  });
});

describe("a schedule set in the Inbox holds email", () => {
  /** "09:00 AM" for a UTC instant, as the Inbox's time select writes it. */
  const novuTime = (at: number) => {
    const d = new Date(at);
    const h = d.getUTCHours();
    const shown = h === 0 ? 12 : h > 12 ? h - 12 : h;
    return `${String(shown).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")} ${h < 12 ? "AM" : "PM"}`;
  };

  it("parks a triggered email until the schedule's next window", async () => {
    const subscriberId = unique("sched");
    const novu = inboxFor(subscriberId, { email: `${subscriberId}@example.com` });
    // The same window every day, two hours from now (the subscriber's zone is UTC: no browser sent one).
    const now = Date.now();
    const hours = [{ start: novuTime(now + 2 * 3_600_000), end: novuTime(now + 3 * 3_600_000) }];
    const days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const;
    const weeklySchedule = Object.fromEntries(days.map((d) => [d, { isEnabled: true, hours }]));
    expect((await novu.preferences.schedule.update({ isEnabled: true, weeklySchedule })).error).toBeUndefined();

    const workflowKey = await workflow();
    const transactionId = unique("tx");
    expect((await clarion("POST", "/v1/trigger", { workflow: workflowKey, to: { subscriberId }, transactionId })).status).toBe(202);
    const waiting = await eventually("the email parked", async () => {
      const { body } = await clarion<{ waiting: { kind: string; until: string; stepId: string }[] }>("GET", `/v1/trigger/${transactionId}`);
      return body.waiting?.length ? body.waiting : undefined;
    });
    expect(waiting).toEqual([
      {
        stepId: "mail",
        subscriberId,
        kind: "schedule",
        until: new Date(Math.floor((now + 2 * 3_600_000) / 60_000) * 60_000).toISOString(),
      },
    ]);
    await clarion("DELETE", "/v1/trigger", { transactionId });
  });
});
