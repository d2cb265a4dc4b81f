// Clarion's spans in Workers traces: the platform's tracer is replaced for the test by one that
// records what each span was named and given (the local runtime samples nothing).
import { tracing } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createWorkflow } from "../e2e/helpers";
import { createSandboxEnvironment, unique } from "../factories";
import { deliveredMessages, postDelivered, triggerDelivered } from "../held-triggers";

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  ended: boolean;
}

/** `isTraced`: what every span says, as a sampled (true) or unsampled trace's spans do. */
function recordSpans(isTraced = true) {
  const spans: Recorded[] = [];
  const span = (name: string) => {
    const recorded: Recorded = { name, attributes: {}, ended: false };
    spans.push(recorded);
    const fake = {
      isTraced,
      setAttributes: (attributes: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(attributes)) if (v !== undefined) recorded.attributes[k] = v;
        return fake;
      },
      end: () => {
        recorded.ended = true;
      },
    };
    return fake;
  };
  vi.spyOn(tracing, "enterSpan").mockImplementation(((name: string, callback: (s: unknown) => unknown) => {
    const fake = span(name);
    const result = callback(fake);
    if (result instanceof Promise) return result.finally(() => fake.end());
    fake.end();
    return result;
  }) as never);
  vi.spyOn(tracing, "startSpan").mockImplementation(((name: string) => span(name)) as never);
  return spans;
}

afterEach(() => void vi.restoreAllMocks());

describe("Clarion's spans", () => {
  it("follow a trigger from the API call to the provider's answer under its environment, workflow and transaction", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = unique("traced");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const spans = recordSpans();
    const transactionId = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "t@example.com" } });
    const [message] = await deliveredMessages(key, transactionId, 1);

    const trigger = { "clarion.environment": id, "clarion.workflow": workflow, "clarion.transaction_id": transactionId };
    const named = (name: string) => spans.filter((s) => s.name === name);
    expect(named("clarion.trigger.accept").map((s) => s.attributes)).toEqual([trigger]);
    expect(named("clarion.delivery.run").map((s) => s.attributes)).toEqual([trigger]);
    expect(named("clarion.provider.send").map((s) => s.attributes)).toEqual([
      {
        ...trigger,
        "clarion.channel": "email",
        "clarion.provider": "sandbox-email",
        "clarion.message_id": message!.id,
        "clarion.outcome": "sent",
      },
    ]);
    expect(spans.every((s) => s.ended)).toBe(true);
  });

  it("gives each trigger of a bulk request its own accept span", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = unique("bulk-traced");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const spans = recordSpans();
    const events = ["a", "b"].map((n) => ({ workflow, transactionId: unique(n), to: { subscriberId: unique(n), email: "t@example.com" } }));
    const res = await postDelivered(key, "/v1/trigger/bulk", { events });
    expect(res.status).toBeLessThan(300);
    const accepted = spans.filter((s) => s.name === "clarion.trigger.accept");
    expect(accepted.map((s) => s.attributes["clarion.transaction_id"]).sort()).toEqual(events.map((e) => e.transactionId).sort());
    expect(accepted.every((s) => s.ended && s.attributes["clarion.environment"] === id)).toBe(true);
  });

  it("makes no span per send under a run whose trace is not sampled", async () => {
    const { key } = await createSandboxEnvironment();
    const workflow = unique("unsampled");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const spans = recordSpans(false);
    const transactionId = await triggerDelivered(key, { workflow, to: { subscriberId: unique("s"), email: "t@example.com" } });
    const [message] = await deliveredMessages(key, transactionId, 1);
    expect(message!.status).toBe("sent");
    expect(spans.filter((s) => s.name === "clarion.delivery.run")).toHaveLength(1);
    expect(spans.filter((s) => s.name === "clarion.provider.send")).toEqual([]);
  });
});
