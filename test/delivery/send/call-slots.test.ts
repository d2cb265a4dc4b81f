// Provider calls in flight in one isolate are capped: past the runtime's 10,000 active timers a
// call's timeout cannot be set, and its chunk would fail after its other sends went out.
import { describe, expect, it } from "vitest";
import { callSlots, PROVIDER_CALLS_IN_FLIGHT, withCallSlot } from "../../../src/delivery/send/call-slots";

describe("provider call slots", () => {
  it("runs at most PROVIDER_CALLS_IN_FLIGHT calls at once, the rest in order as slots free, and frees every slot", async () => {
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const total = PROVIDER_CALLS_IN_FLIGHT + 5;
    const calls = Array.from({ length: total }, (_, i) =>
      withCallSlot(async () => {
        started.push(i);
        await new Promise<void>((resolve) => releases.push(resolve));
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toHaveLength(PROVIDER_CALLS_IN_FLIGHT);
    expect(callSlots()).toEqual({ inFlight: PROVIDER_CALLS_IN_FLIGHT, waiting: 5 });

    releases.shift()!();
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started.slice(PROVIDER_CALLS_IN_FLIGHT)).toEqual([PROVIDER_CALLS_IN_FLIGHT, PROVIDER_CALLS_IN_FLIGHT + 1]);
    expect(callSlots()).toEqual({ inFlight: PROVIDER_CALLS_IN_FLIGHT, waiting: 3 });

    // A call that throws frees its slot too.
    const failing = withCallSlot(() => Promise.reject(new Error("refused"))).then(
      () => "resolved",
      (error: unknown) => String(error),
    );
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await Promise.all(calls)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(await failing).toBe("Error: refused");
    expect(callSlots()).toEqual({ inFlight: 0, waiting: 0 });
  });
});
