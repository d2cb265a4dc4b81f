import { describe, expect, it } from "vitest";
import type { DeliverySchedule } from "../../src/contract/preferences";
import { holdFor, scheduleOpensAt } from "../../src/engine/delivery-schedule";

// 2026-11-23 is a Monday.
const weekdays9to5: DeliverySchedule = {
  enabled: true,
  days: Object.fromEntries(
    ["mon", "tue", "wed", "thu", "fri"].map((d) => [d, { enabled: true, hours: [{ start: "09:00", end: "17:00" }] }]),
  ),
};
const iso = (d: Date) => d.toISOString();

describe("scheduleOpensAt", () => {
  it("lets a message inside a window go at once", () => {
    const now = new Date("2026-11-23T10:00:00Z");
    expect(scheduleOpensAt(now, weekdays9to5, "UTC")).toBe(now);
  });

  it("holds a message before the day's window until it opens", () => {
    expect(iso(scheduleOpensAt(new Date("2026-11-23T06:30:00Z"), weekdays9to5, "UTC"))).toBe("2026-11-23T09:00:00.000Z");
  });

  it("holds a message after Friday's window until Monday's", () => {
    expect(iso(scheduleOpensAt(new Date("2026-11-27T17:00:00Z"), weekdays9to5, "UTC"))).toBe("2026-11-30T09:00:00.000Z");
  });

  it("reads the windows in the subscriber's time zone", () => {
    // 23:00 UTC Monday is 08:00 Tuesday in Tokyo: Tuesday's window opens at 00:00 UTC.
    expect(iso(scheduleOpensAt(new Date("2026-11-23T23:00:00Z"), weekdays9to5, "Asia/Tokyo"))).toBe("2026-11-24T00:00:00.000Z");
    // 10:00 UTC is 11:00 in Zurich: inside.
    const now = new Date("2026-11-23T10:00:00Z");
    expect(scheduleOpensAt(now, weekdays9to5, "Europe/Zurich")).toBe(now);
  });

  it("follows daylight saving time", () => {
    // New York moves to EDT on Sunday 2026-03-08: Monday's 09:00 is 13:00 UTC.
    expect(iso(scheduleOpensAt(new Date("2026-03-07T20:00:00Z"), weekdays9to5, "America/New_York"))).toBe("2026-03-09T13:00:00.000Z");
  });

  it("counts a window past midnight for the day it starts on", () => {
    const nights: DeliverySchedule = { enabled: true, days: { mon: { enabled: true, hours: [{ start: "22:00", end: "02:00" }] } } };
    const tuesdayEarly = new Date("2026-11-24T01:00:00Z");
    expect(scheduleOpensAt(tuesdayEarly, nights, "UTC")).toBe(tuesdayEarly);
    expect(iso(scheduleOpensAt(new Date("2026-11-24T02:00:00Z"), nights, "UTC"))).toBe("2026-11-30T22:00:00.000Z");
  });

  it("takes the earliest of several windows and skips disabled days", () => {
    const schedule: DeliverySchedule = {
      enabled: true,
      days: {
        mon: { enabled: false, hours: [{ start: "12:00", end: "13:00" }] },
        tue: {
          enabled: true,
          hours: [
            { start: "18:00", end: "20:00" },
            { start: "08:00", end: "09:00" },
          ],
        },
      },
    };
    expect(iso(scheduleOpensAt(new Date("2026-11-23T11:00:00Z"), schedule, "UTC"))).toBe("2026-11-24T08:00:00.000Z");
    expect(iso(scheduleOpensAt(new Date("2026-11-24T10:00:00Z"), schedule, "UTC"))).toBe("2026-11-24T18:00:00.000Z");
  });

  it.each<[string, DeliverySchedule]>([
    ["turned off", { ...weekdays9to5, enabled: false }],
    ["with no window at all", { enabled: true, days: { mon: { enabled: true, hours: [] }, tue: { enabled: false, hours: [] } } }],
  ])("holds nothing when the schedule is %s", (_, schedule) => {
    const now = new Date("2026-11-28T03:00:00Z");
    expect(scheduleOpensAt(now, schedule, "UTC")).toBe(now);
  });
});

describe("holdFor", () => {
  const saturday = new Date("2026-11-28T12:00:00Z");

  it("holds email, SMS, push and chat outside the schedule, never in-app", () => {
    for (const channel of ["email", "sms", "push", "chat"] as const) {
      expect(holdFor(saturday, { schedule: weekdays9to5 }, channel, "UTC")).toEqual({
        until: new Date("2026-11-30T09:00:00Z"),
        reason: "schedule",
      });
    }
    expect(holdFor(saturday, { schedule: weekdays9to5 }, "in_app", "UTC")).toBeNull();
  });

  it("waits for the first time both quiet hours and the schedule allow", () => {
    // Monday's window opens at 09:00, but quiet hours last until 09:30.
    const prefs = { schedule: weekdays9to5, quietHours: { start: "22:00", end: "09:30" } };
    expect(holdFor(saturday, prefs, "email", "UTC")).toEqual({ until: new Date("2026-11-30T09:30:00Z"), reason: "quiet_hours" });
  });

  it("holds nothing without quiet hours or a schedule", () => {
    expect(holdFor(saturday, null, "email", "UTC")).toBeNull();
    expect(holdFor(saturday, { schedule: null, quietHours: null }, "sms", "UTC")).toBeNull();
  });
});
