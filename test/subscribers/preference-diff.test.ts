import { describe, expect, it } from "vitest";
import { applyUpdate, preferenceChange } from "../../src/features/subscribers/preference-diff";

describe("applyUpdate", () => {
  it("merges as json_patch does: objects merge, null removes a key", () => {
    const stored = {
      channels: { email: false },
      workflows: { news: { email: false, sms: true } },
      quietHours: { start: "22:00", end: "07:00" },
    };
    expect(
      applyUpdate(stored, { channels: { sms: false }, workflows: { news: { email: null }, digest: { push: false } }, quietHours: null }),
    ).toEqual({
      channels: { email: false, sms: false },
      workflows: { news: { sms: true }, digest: { push: false } },
    });
    expect(applyUpdate(null, { workflows: { news: null } })).toEqual({ workflows: {} });
  });

  it("replaces a schedule as a whole, days in week order, and removes it with null", () => {
    const stored = {
      schedule: {
        enabled: true,
        days: { mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] }, tue: { enabled: true, hours: [] } },
      },
    };
    const given = {
      enabled: true,
      days: { sun: { enabled: true, hours: [{ end: "12:00", start: "10:00" }] }, wed: { enabled: false, hours: [] } },
    };
    const after = applyUpdate(stored, { schedule: given });
    expect(after).toEqual({ schedule: given });
    expect(JSON.stringify(after.schedule)).toBe(
      '{"enabled":true,"days":{"wed":{"enabled":false,"hours":[]},"sun":{"enabled":true,"hours":[{"start":"10:00","end":"12:00"}]}}}',
    );
    expect(applyUpdate(stored, { schedule: null })).toEqual({});
    expect(applyUpdate(stored, { channels: { sms: false } }).schedule).toEqual(stored.schedule);
  });
});

describe("preferenceChange", () => {
  it.each([
    ["an unset channel flag set on", null, { channels: { email: true } }, null],
    ["a channel turned off", null, { channels: { email: false } }, { channels: { email: false } }],
    ["a channel turned back on", { channels: { email: false } }, { channels: { email: true } }, { channels: { email: true } }],
    ["a workflow flag dropped", { workflows: { news: { email: false } } }, { workflows: { news: {} } }, { workflows: { news: null } }],
    [
      "one of two workflow flags dropped",
      { workflows: { news: { email: false, sms: true } } },
      { workflows: { news: { sms: true } } },
      { workflows: { news: { email: null } } },
    ],
    ["an empty workflow entry added", null, { workflows: { news: {} } }, null],
    [
      "quiet hours moved, as a whole",
      { quietHours: { start: "22:00", end: "07:00" } },
      { quietHours: { start: "23:00", end: "07:00" } },
      { quietHours: { start: "23:00", end: "07:00" } },
    ],
    ["quiet hours cleared", { quietHours: { start: "22:00", end: "07:00" } }, {}, { quietHours: null }],
    [
      "a schedule changed, as a whole",
      { schedule: { enabled: true, days: { mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] } } } },
      { schedule: { enabled: false, days: { mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] } } } },
      { schedule: { enabled: false, days: { mon: { enabled: true, hours: [{ start: "09:00", end: "17:00" }] } } } },
    ],
    ["a schedule removed", { schedule: { enabled: true, days: {} } }, {}, { schedule: null }],
    ["the same schedule again", { schedule: { enabled: true, days: {} } }, { schedule: { enabled: true, days: {} } }, null],
  ])("%s", (_name, before, after, expected) => {
    expect(preferenceChange(before, after)).toEqual(expected);
  });
});
