// One renewal timer per consumer invocation, running only while claims are held: each tick
// renews every held step's claims at its home object, and nothing after the last release.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { TriggerHome } from "../../../src/durable-objects/client/batched-homes";
import { CLAIM_DEADLINE_MS, CLAIM_RENEW_MS } from "../../../src/durable-objects/ledger/claims";
import { ClaimLeases } from "../../../src/delivery/phases/claim-lease";

const homeRenewing = () => {
  const renewed: string[][] = [];
  const home = {
    renew: async (keys: string[]) => {
      renewed.push(keys);
      return keys.length;
    },
  } as unknown as TriggerHome;
  return { home, renewed };
};

afterEach(() => {
  vi.useRealTimers();
});

describe("ClaimLeases", () => {
  it("renews what is held, a third of the deadline apart, with one timer for all, and stops when nothing is", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    expect(CLAIM_RENEW_MS * 3).toBe(CLAIM_DEADLINE_MS);
    const leases = new ClaimLeases();
    const a = homeRenewing();
    const b = homeRenewing();
    const releaseA = leases.hold(a.home, ["a1", "a2"]);
    const releaseB = leases.hold(b.home, ["b1"]);
    expect(leases.hold(a.home, [])).toBeTypeOf("function");
    expect(vi.getTimerCount()).toBe(1);

    vi.advanceTimersByTime(CLAIM_RENEW_MS - 1);
    expect(a.renewed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(a.renewed).toEqual([["a1", "a2"]]);
    expect(b.renewed).toEqual([["b1"]]);

    releaseA();
    vi.advanceTimersByTime(CLAIM_RENEW_MS);
    expect(a.renewed).toHaveLength(1);
    expect(b.renewed).toHaveLength(2);
    releaseB();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(CLAIM_DEADLINE_MS);
    expect(b.renewed).toHaveLength(2);

    // Held again later: a new timer.
    const releaseAgain = leases.hold(b.home, ["b2"]);
    expect(vi.getTimerCount()).toBe(1);
    releaseAgain();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps renewing after a renewal fails", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    let calls = 0;
    const home = {
      renew: () => (++calls === 1 ? Promise.reject(new Error("ledger unavailable")) : Promise.resolve(1)),
    } as unknown as TriggerHome;
    const release = new ClaimLeases().hold(home, ["k"]);
    vi.advanceTimersByTime(CLAIM_RENEW_MS);
    await Promise.resolve();
    vi.advanceTimersByTime(CLAIM_RENEW_MS);
    release();
    expect(calls).toBe(2);
    expect(log.mock.calls.some(([line]) => String(line).includes("claim_renewal_failed"))).toBe(true);
    log.mockRestore();
  });
});
