// A provider call's timeout timer ends with the call: the runtime refuses new timers past 10,000
// active in an isolate, and a backlog sends far more than that within one timeout.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sendMessage } from "../../../src/delivery/send/send-message";
import { destinationOptions } from "../../../src/lib/destinations";
import type { IntegrationConfig } from "../../../src/providers/types";

const sandbox: IntegrationConfig = {
  id: "int_1",
  provider: "sandbox-email",
  channel: "email",
  credentials: {},
  settings: {},
  baseUrl: null,
};

describe("a provider call's timeout", () => {
  it("leaves no timer behind: 10,100 sends one after another all succeed", async () => {
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 10_100; i++) {
      const { outcome } = await sendMessage(
        sandbox,
        [`t${i}@example.com`],
        {
          messageId: `msg_${i}`,
          content: { subject: "Hi", text: "Hello" } as never,
          providerOverrides: {},
          subscriber: { subscriberId: `s${i}`, firstName: null, lastName: null },
        },
        destinationOptions(env),
      ).catch((error: unknown) => ({ outcome: { ok: false, code: String(error) } }));
      const key = outcome.ok ? "sent" : String("code" in outcome ? outcome.code : "failed");
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ sent: 10_100 });
  });
});
