// Each invocation keeps its own provider call slots and shared timeout timers: a promise an
// invocation awaits must be settled by its own work, or the runtime ends it once it has nothing
// else pending ("Promise will never complete"), and a timer opened by another invocation stops
// with it. The Worker's entry runs every request and Queue batch in a scope of its own.
import { describe, expect, it } from "vitest";
import { connectionSlots, CONNECTIONS_PER_INVOCATION, withConnection } from "../../src/lib/connection-slots";
import { inInvocationScope } from "../../src/lib/invocation-scope";
import { timeoutSignal } from "../../src/lib/timeout";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, startTriggers } from "../ledger";
import { loggedMessages } from "../log";

describe("an invocation's scope", () => {
  it("gives another invocation its own call slots: it runs while every slot of the first is held", async () => {
    const releases: (() => void)[] = [];
    const first = inInvocationScope(() =>
      Promise.all(
        Array.from({ length: CONNECTIONS_PER_INVOCATION + 1 }, () =>
          withConnection(() => new Promise<void>((resolve) => releases.push(resolve))),
        ),
      ),
    );
    await Promise.resolve();
    expect(releases).toHaveLength(CONNECTIONS_PER_INVOCATION);
    const second = await inInvocationScope(async () => {
      const answer = await withConnection(async () => "ran");
      return { answer, slots: connectionSlots() };
    });
    expect(second).toEqual({ answer: "ran", slots: { inFlight: 0, waiting: 0 } });
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    await first;
  });

  it("shares a timeout timer within one invocation, never across two", () => {
    const [a1, a2] = inInvocationScope(() => [timeoutSignal(10_000), timeoutSignal(10_000)]);
    const [b1] = inInvocationScope(() => [timeoutSignal(10_000)]);
    expect(a1!.signal).toBe(a2!.signal);
    expect(b1!.signal).not.toBe(a1!.signal);
    for (const t of [a1, a2, b1]) t!.done();
  });

  it("is made for each Queue batch the Worker's entry runs: its sends never wait for slots held outside it", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = unique("scoped");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } }] });
    const accepted = await acceptThenCrash(id, workflow, { subscriberId: unique("s"), email: "ada@example.com" }, { loseJob: true });
    // Every slot outside any invocation's scope held, as another invocation's calls would hold them.
    const releases: (() => void)[] = [];
    const held = Promise.all(
      Array.from({ length: CONNECTIONS_PER_INVOCATION }, () =>
        withConnection(() => new Promise<void>((resolve) => releases.push(resolve))),
      ),
    );
    await Promise.resolve();
    expect(connectionSlots().inFlight).toBe(CONNECTIONS_PER_INVOCATION);
    try {
      await startTriggers(id, [accepted.transactionId]);
      const [message] = await loggedMessages(id, { transactionId: accepted.transactionId });
      expect(message).toMatchObject({ status: "sent", provider: "sandbox-email" });
    } finally {
      for (const release of releases) release();
      await held;
    }
  });
});
