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
  ])("%s", (_name, before, after, expected) => {
    expect(preferenceChange(before, after)).toEqual(expected);
  });
});
