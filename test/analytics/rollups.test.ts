import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FIGURE_MASKS } from "../../src/contract/message-figures";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { createSandboxEnvironment, createWorkflow } from "../factories";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const logs = new LogStore(env);
const DAY = 86_400_000;
const window = (now = Date.now()) => ({ since: now - DAY, until: now + DAY, bucketMs: DAY });

describe("analytics rollups in the log shards", () => {
  it("count each message once under the states it reached, with its trigger and recipient", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "notify",
      steps: [
        { id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } },
        { id: "text", type: "sms", template: { body: "Hello" } },
      ],
    });
    const trigger = {
      workflow: "notify",
      transactionId: "rollup-1",
      to: { subscriberId: "ada", email: "ada@example.com", phone: "+41791234567" },
    };
    const tx = await triggerDelivered(key, trigger);
    await deliveredMessages(key, tx, 2);
    // The same trigger again is a replay: nothing more is counted.
    await triggerDelivered(key, trigger);

    const got = await logs.analytics(id, window(), ["counts", "audience", "fatigue", "latency"]);
    const counts = got.counts ?? [];
    expect(counts.reduce((n, r) => n + r.n, 0)).toBe(2);
    expect(counts.filter((r) => (r.states & FIGURE_MASKS.sent) !== 0).map((r) => [r.stepId, r.provider, r.n])).toEqual(
      expect.arrayContaining([
        ["mail", "sandbox-email", 1],
        ["text", "sandbox-sms", 1],
      ]),
    );
    expect(got.audience?.map((a) => [a.workflowKey, a.triggers, a.recipients])).toEqual([["notify", 1, 1]]);
    expect(got.fatigue).toEqual({
      distribution: [{ messages: 2, subscriberDays: 1 }],
      top: [{ subscriberId: "ada", messages: 2, days: 1, maxPerDay: 2 }],
    });
    expect(got.latency?.reduce((n, r) => n + r.n, 0)).toBe(2);

    const other = await createSandboxEnvironment();
    expect(await logs.analytics(other.id, window(), ["counts", "audience"])).toEqual({ counts: [], audience: [] });
  });
});
