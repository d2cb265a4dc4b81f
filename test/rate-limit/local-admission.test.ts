import { describe, expect, it } from "vitest";
import { failOpen } from "../../src/lib/middleware/rate-limit";
import type { Rate, RateLimiter, Rule } from "../../src/lib/rate-limit/limiter";
import { LOCAL_SHARE, LocalAdmission } from "../../src/lib/rate-limit/local-admission";

/** A backend that records what it is asked and refuses once a rule has been asked `refuseAfter` times. */
function countingBackend(exact: boolean, refuseAfter = Number.POSITIVE_INFINITY) {
  const asked: string[] = [];
  const backend: RateLimiter = {
    backend: exact ? "upstash" : "binding",
    exact,
    async limit(rule) {
      asked.push(rule.name);
      const seen = asked.filter((name) => name === rule.name).length;
      return { success: seen <= refuseAfter, resetSeconds: rule.rate.period };
    },
  };
  return { backend, asked };
}

const rules = (environment: Rate, key: Rate): Rule[] => [
  { name: "environment", identifier: "env_1", rate: environment },
  { name: "key", identifier: "hash_1", rate: key },
];

// 10 s into a 60 s window (and a 10 s one's start): every request of a test falls in one window.
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe("LocalAdmission over an approximate backend (the Rate Limiting binding)", () => {
  it("asks nothing while every rule is within this isolate's share of its window", async () => {
    const { backend, asked } = countingBackend(false);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 1000, period: 10 }, { limit: 500, period: 10 });
    const free = Math.floor(500 * LOCAL_SHARE);
    for (let i = 0; i < free; i++) expect((await admission.admit(backend, limits, T0)).every((d) => d.success)).toBe(true);
    expect(asked).toEqual([]);
  });

  it("asks once per request past the share, about the rule nearest its limit", async () => {
    const { backend, asked } = countingBackend(false);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 5, period: 60 }, { limit: 4, period: 60 });
    for (let i = 0; i < 3; i++) await admission.admit(backend, limits, T0 + i);
    expect(asked).toEqual(["key", "key", "key"]);
  });

  it("refuses past the limit this isolate counted alone, without asking, until the window ends", async () => {
    const { backend, asked } = countingBackend(false);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 150_000, period: 10 }, { limit: 4, period: 60 });
    for (let i = 0; i < 4; i++) expect((await admission.admit(backend, limits, T0)).every((d) => d.success)).toBe(true);
    const [environment, key] = await admission.admit(backend, limits, T0 + 15_000);
    expect(environment?.success).toBe(true);
    expect(key).toEqual({ success: false, resetSeconds: 45 });
    expect(asked).toHaveLength(4);
    // The next minute is a new window.
    expect((await admission.admit(backend, limits, T0 + 60_000)).every((d) => d.success)).toBe(true);
  });

  it("refuses the rest of a window the backend refused once, without asking again", async () => {
    const { backend, asked } = countingBackend(false, 1);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 150_000, period: 10 }, { limit: 4, period: 60 });
    await admission.admit(backend, limits, T0);
    expect((await admission.admit(backend, limits, T0 + 1))[1]?.success).toBe(false);
    expect((await admission.admit(backend, limits, T0 + 2))[1]).toEqual({ success: false, resetSeconds: 60 });
    expect(asked).toEqual(["key", "key"]);
  });

  it("keeps environments, keys and rates apart", async () => {
    const { backend } = countingBackend(false);
    const admission = new LocalAdmission();
    const one: Rule = { name: "key", identifier: "a", rate: { limit: 2, period: 60 } };
    await admission.admit(backend, [one], T0);
    await admission.admit(backend, [one], T0);
    expect((await admission.admit(backend, [one], T0))[0]?.success).toBe(false);
    expect((await admission.admit(backend, [{ ...one, identifier: "b" }], T0))[0]?.success).toBe(true);
    expect((await admission.admit(backend, [{ ...one, name: "environment" }], T0))[0]?.success).toBe(true);
    expect((await admission.admit(backend, [{ ...one, rate: { limit: 3, period: 60 } }], T0))[0]?.success).toBe(true);
  });

  it("lets the request through when the backend fails", async () => {
    const backend = failOpen({
      backend: "binding",
      exact: false,
      limit: () => Promise.reject(new Error("unreachable")),
    });
    expect(await new LocalAdmission().admit(backend, [{ name: "key", identifier: "x", rate: { limit: 4, period: 60 } }], T0)).toEqual([
      { success: true, resetSeconds: 60 },
    ]);
  });
});

describe("LocalAdmission over an exact backend (Upstash)", () => {
  it("asks about every rule of every request", async () => {
    const { backend, asked } = countingBackend(true);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 150_000, period: 10 }, { limit: 100_000, period: 10 });
    await admission.admit(backend, limits, T0);
    await admission.admit(backend, limits, T0);
    expect(asked).toEqual(["environment", "key", "environment", "key"]);
  });

  it("refuses the rest of a window it refused once, without asking again", async () => {
    const { backend, asked } = countingBackend(true, 1);
    const admission = new LocalAdmission();
    const limits = rules({ limit: 150_000, period: 10 }, { limit: 100_000, period: 10 });
    await admission.admit(backend, limits, T0);
    expect((await admission.admit(backend, limits, T0)).some((d) => !d.success)).toBe(true);
    expect((await admission.admit(backend, limits, T0)).some((d) => !d.success)).toBe(true);
    expect(asked).toHaveLength(4);
  });
});
