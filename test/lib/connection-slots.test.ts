// An invocation waits on at most six outbound calls at once, the platform's limit: a call's
// timeout starts once it has one of the six, not while the runtime would hold it in its own
// queue (where a fan-out's sends ran out of time unsent, and a timeout fails a message).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type RenderedRequest, sendRequest } from "../../src/delivery/control/http-request";
import { sendMessage } from "../../src/delivery/send/send-message";
import { sendSigned } from "../../src/features/events/endpoints/send";
import type { SendableEndpoint } from "../../src/features/events/endpoints/rows";
import { connectionSlots, CONNECTIONS_PER_INVOCATION, withConnection } from "../../src/lib/connection-slots";
import { destinationOptions } from "../../src/lib/destinations";
import { inInvocationScope } from "../../src/lib/invocation-scope";
import type { IntegrationConfig } from "../../src/providers/types";
import { fakeProviderScenario } from "../factories";

const CALLS = 20;
/** Each answer takes this long; four rounds of six take longer than a call's timeout. */
const ANSWER_MS = 120;
const TIMEOUT_MS = 300;

const emailRequest = (i: number) => ({
  messageId: `msg_slots_${i}`,
  content: { subject: "Hi", text: "Hello" } as never,
  providerOverrides: {},
  subscriber: { subscriberId: `s${i}`, firstName: null, lastName: null },
});

describe("outbound calls of one invocation", () => {
  it("sends a provider's messages six at a time, each within its own timeout", async () => {
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: { id: "re_1" }, delayMs: ANSWER_MS }]);
    const resend: IntegrationConfig = {
      id: "int_slots",
      provider: "resend",
      channel: "email",
      credentials: { apiKey: "re_test", from: "a@example.com" },
      settings: { timeoutMs: TIMEOUT_MS },
      baseUrl: provider.baseUrl,
    };
    const started = Date.now();
    const results = await inInvocationScope(() =>
      Promise.all(
        Array.from({ length: CALLS }, (_, i) => sendMessage(resend, [`t${i}@example.com`], emailRequest(i), destinationOptions(env))),
      ),
    );
    expect(results.map((r) => r.outcome.ok)).toEqual(Array(CALLS).fill(true));
    expect(await provider.peak()).toBe(CONNECTIONS_PER_INVOCATION);
    // Longer than one timeout: the last calls waited for a connection before their timers started.
    expect(Date.now() - started).toBeGreaterThan(TIMEOUT_MS);
  });

  it("takes no connection for the sandbox providers, which answer in the isolate", async () => {
    const sandbox: IntegrationConfig = {
      id: "int_sb",
      provider: "sandbox-email",
      channel: "email",
      credentials: {},
      settings: {},
      baseUrl: null,
    };
    const releases: (() => void)[] = [];
    const outcome = await inInvocationScope(async () => {
      const held = Array.from({ length: CONNECTIONS_PER_INVOCATION }, () =>
        withConnection(() => new Promise<void>((resolve) => releases.push(resolve))),
      );
      await Promise.resolve();
      const sent = await sendMessage(sandbox, ["x@example.com"], emailRequest(0), destinationOptions(env));
      for (const release of releases) release();
      await Promise.all(held);
      return sent.outcome;
    });
    expect(outcome.ok).toBe(true);
  });

  it("runs a fetch step's requests and event webhooks six at a time too", async () => {
    const service = fakeProviderScenario();
    await service.script([{ status: 200, body: { ok: true }, delayMs: ANSWER_MS }]);
    const request: RenderedRequest = { method: "GET", url: `${service.baseUrl}/lookup`, headers: new Headers() };
    const attempts = await inInvocationScope(() =>
      Promise.all(Array.from({ length: CALLS }, () => sendRequest(request, TIMEOUT_MS, destinationOptions(env)))),
    );
    expect(attempts.map((a) => a.kind)).toEqual(Array(CALLS).fill("answer"));
    expect(await service.peak()).toBe(CONNECTIONS_PER_INVOCATION);

    const receiver = fakeProviderScenario();
    await receiver.script([{ status: 204, delayMs: ANSWER_MS }]);
    const endpoint = {
      row: { url: `${receiver.baseUrl}/hook` },
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    } as unknown as SendableEndpoint;
    const results = await inInvocationScope(() =>
      Promise.all(Array.from({ length: CALLS }, (_, i) => sendSigned(endpoint, `evt_${i}`, "{}", destinationOptions(env)))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(CALLS).fill("succeeded"));
    expect(await receiver.peak()).toBe(CONNECTIONS_PER_INVOCATION);
  });
});

describe("connection slots", () => {
  it("runs at most CONNECTIONS_PER_INVOCATION calls at once, the rest in order as slots free, and frees every slot", async () => {
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const total = CONNECTIONS_PER_INVOCATION + 5;
    const calls = Array.from({ length: total }, (_, i) =>
      withConnection(async () => {
        started.push(i);
        await new Promise<void>((resolve) => releases.push(resolve));
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toHaveLength(CONNECTIONS_PER_INVOCATION);
    expect(connectionSlots()).toEqual({ inFlight: CONNECTIONS_PER_INVOCATION, waiting: 5 });

    releases.shift()!();
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started.slice(CONNECTIONS_PER_INVOCATION)).toEqual([CONNECTIONS_PER_INVOCATION, CONNECTIONS_PER_INVOCATION + 1]);
    expect(connectionSlots()).toEqual({ inFlight: CONNECTIONS_PER_INVOCATION, waiting: 3 });

    // A call that throws frees its slot too.
    const failing = withConnection(() => Promise.reject(new Error("refused"))).then(
      () => "resolved",
      (error: unknown) => String(error),
    );
    while (releases.length) {
      releases.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(await Promise.all(calls)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(await failing).toBe("Error: refused");
    expect(connectionSlots()).toEqual({ inFlight: 0, waiting: 0 });
  });
});
