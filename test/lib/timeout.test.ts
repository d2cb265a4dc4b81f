// Provider calls (and HTTP steps, webhook attempts) starting together share one timer and one
// signal: each still gets its whole timeout, and the timer ends with the last of them.
import { afterEach, describe, expect, it, vi } from "vitest";
import { TIMEOUT_JOIN_MS, timeoutSignal } from "../../src/lib/timeout";

describe("timeoutSignal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shares one signal among calls of one timeout starting within the join window, and gives each its whole timeout", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const first = timeoutSignal(1_000);
    vi.advanceTimersByTime(TIMEOUT_JOIN_MS - 1);
    const joined = timeoutSignal(1_000);
    const otherLength = timeoutSignal(2_000);
    expect(joined.signal).toBe(first.signal);
    expect(otherLength.signal).not.toBe(first.signal);
    expect(vi.getTimerCount()).toBe(2);

    // The last to join still has its 1,000 ms.
    vi.advanceTimersByTime(1_000);
    expect(joined.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(joined.signal.aborted).toBe(true);
    expect((joined.signal.reason as DOMException).name).toBe("TimeoutError");
    otherLength.done();
    first.done();
    joined.done();
  });

  it("opens a new timer once the window has passed, and ends a timer when its last call is done", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const a = timeoutSignal(5_000);
    const b = timeoutSignal(5_000);
    vi.advanceTimersByTime(TIMEOUT_JOIN_MS);
    const c = timeoutSignal(5_000);
    expect(c.signal).not.toBe(a.signal);
    expect(vi.getTimerCount()).toBe(2);
    a.done();
    a.done(); // a second done of one call does not end the others' timer
    expect(vi.getTimerCount()).toBe(2);
    b.done();
    expect(vi.getTimerCount()).toBe(1);
    c.done();
    expect(vi.getTimerCount()).toBe(0);
    // With every call done, the next opens its own.
    const d = timeoutSignal(5_000);
    expect(d.signal).not.toBe(c.signal);
    expect(d.signal.aborted).toBe(false);
    d.done();
    expect(a.signal.aborted || c.signal.aborted).toBe(false);
  });

  it("never hands out a signal that already fired", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const late = timeoutSignal(0);
    vi.advanceTimersByTime(TIMEOUT_JOIN_MS);
    expect(late.signal.aborted).toBe(true);
    // Date.now() may not move in the Workers runtime between calls: a fired timer is not joined however soon.
    vi.setSystemTime(Date.now() - TIMEOUT_JOIN_MS);
    const next = timeoutSignal(0);
    expect(next.signal.aborted).toBe(false);
    next.done();
    late.done();
  });
});
