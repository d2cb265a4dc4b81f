import { describe, expect, it } from "vitest";
import { nextLocalTime, quietHoursEnd, zoneOf } from "../../src/engine/local-time";

describe("nextLocalTime", () => {
  it("finds the next 09:00 in the subscriber's zone", () => {
    // 2026-11-23 is a Monday; 06:00 UTC is 07:00 in Zurich.
    expect(nextLocalTime(new Date("2026-11-23T06:00:00Z"), "09:00", "Europe/Zurich").toISOString()).toBe("2026-11-23T08:00:00.000Z");
  });

  it("moves to the next day once today's time has passed", () => {
    expect(nextLocalTime(new Date("2026-11-23T10:00:00Z"), "09:00", "Europe/Zurich").toISOString()).toBe("2026-11-24T08:00:00.000Z");
  });

  it("skips days that are not allowed (Friday evening to Monday morning)", () => {
    const friday = new Date("2026-11-27T18:00:00Z");
    const at = nextLocalTime(friday, "09:00", "America/New_York", ["mon", "tue", "wed", "thu", "fri"]);
    expect(at.toISOString()).toBe("2026-11-30T14:00:00.000Z");
  });

  it("follows daylight saving time", () => {
    // New York switches to EDT on 2026-03-08: 09:00 is 13:00 UTC from then on.
    expect(nextLocalTime(new Date("2026-03-08T12:00:00Z"), "09:00", "America/New_York").toISOString()).toBe("2026-03-08T13:00:00.000Z");
  });
});

describe("quietHoursEnd", () => {
  const quiet = { start: "22:00", end: "07:00" };
  it("holds a message sent inside quiet hours that span midnight until they end", () => {
    expect(quietHoursEnd(new Date("2026-11-23T23:30:00Z"), quiet, "UTC")?.toISOString()).toBe("2026-11-24T07:00:00.000Z");
    expect(quietHoursEnd(new Date("2026-11-24T03:00:00Z"), quiet, "UTC")?.toISOString()).toBe("2026-11-24T07:00:00.000Z");
  });

  it("lets a message outside quiet hours go at once", () => {
    expect(quietHoursEnd(new Date("2026-11-23T12:00:00Z"), quiet, "UTC")).toBeNull();
    expect(quietHoursEnd(new Date("2026-11-23T12:00:00Z"), { start: "09:00", end: "17:00" }, "Asia/Tokyo")).toBeNull();
  });

  it("uses the subscriber's zone", () => {
    // 14:00 UTC is 23:00 in Tokyo.
    expect(quietHoursEnd(new Date("2026-11-23T14:00:00Z"), quiet, "Asia/Tokyo")?.toISOString()).toBe("2026-11-23T22:00:00.000Z");
  });
});

describe("zoneOf", () => {
  it("falls back to UTC for a missing or unknown zone", () => {
    expect(zoneOf(null)).toBe("UTC");
    expect(zoneOf("Mars/Olympus")).toBe("UTC");
    expect(zoneOf("Europe/Zurich")).toBe("Europe/Zurich");
  });
});
