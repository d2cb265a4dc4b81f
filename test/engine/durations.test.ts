import { describe, expect, it } from "vitest";
import { addDuration, parseDuration } from "../../src/engine/durations";

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe("parseDuration", () => {
  it.each([
    ["PT15M", 15 * M],
    ["PT2H", 2 * H],
    ["PT1.5S", 1_500],
    ["PT0S", 0],
    ["P1D", D],
    ["-P1D", -D],
    ["P2W", 14 * D],
    ["P1DT2H3M4S", D + 2 * H + 3 * M + 4 * S],
    ["-PT30M", -30 * M],
    ["P1M", 30 * D],
    ["P1Y", 365 * D],
    ["P1Y2M", 365 * D + 60 * D],
  ])("reads %s", (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(["", "P", "PT", "-P", "1D", "P1H", "PT1D", "P1.5D", "p1d", "P-1D", "now", "P1DT"])("rejects %j", (input) => {
    expect(parseDuration(input)).toBeNull();
  });

  it("counts months by the calendar from an anchor", () => {
    expect(parseDuration("P1M", new Date("2025-02-01T00:00:00Z"))).toBe(28 * D);
    expect(parseDuration("-P1M", new Date("2025-03-01T00:00:00Z"))).toBe(-28 * D);
    expect(parseDuration("P1Y", new Date("2024-01-01T00:00:00Z"))).toBe(366 * D);
  });
});

describe("addDuration", () => {
  it("clamps to the end of a shorter month", () => {
    expect(addDuration(new Date("2025-01-31T10:00:00Z"), "P1M")?.toISOString()).toBe("2025-02-28T10:00:00.000Z");
    expect(addDuration(new Date("2024-03-31T10:00:00Z"), "-P1M")?.toISOString()).toBe("2024-02-29T10:00:00.000Z");
  });

  it("moves by the fixed part after the calendar part", () => {
    expect(addDuration(new Date("2025-01-31T23:00:00Z"), "P1MT2H")?.toISOString()).toBe("2025-03-01T01:00:00.000Z");
    expect(addDuration(new Date("2025-06-10T00:00:00Z"), "-P1D")?.toISOString()).toBe("2025-06-09T00:00:00.000Z");
  });

  it("answers null for what is not a duration or overflows", () => {
    expect(addDuration(new Date(), "tomorrow")).toBeNull();
    expect(addDuration(new Date(), "P999999999Y")).toBeNull();
  });
});
