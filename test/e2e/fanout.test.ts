import { describe, expect, it } from "vitest";
import { loggedCaptures } from "../log";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, seedTopic, trigger, eventually } from "./helpers";

const MEMBERS = 2_000;

describe("topic fan-out through the Queue", () => {
  it(`delivers a topic of ${MEMBERS} members completely and exactly once`, async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "broadcast",
      steps: [{ id: "push", type: "push", template: { title: "News", body: "for {{ subscriber.subscriberId }}" } }],
    });
    const topicKey = unique("topic").toLowerCase();
    await seedTopic(id, topicKey, MEMBERS);
    const transactionId = await trigger(key, { workflow: "broadcast", to: { topic: topicKey } });

    const status = await eventually(async () => {
      const res = await api<{ status: string; messages: { total: number; byStatus: Record<string, number> } }>(
        key,
        "GET",
        `/v1/trigger/${transactionId}`,
      );
      return res.body.status === "completed" ? res.body : null;
    }, 120_000);
    expect(status.messages).toEqual({ total: MEMBERS, byStatus: { sent: MEMBERS } });

    const captured = await loggedCaptures(id, transactionId);
    const captures = { n: captured.length, distinct_subscribers: new Set(captured.map((c) => c.message.subscriberId)).size };
    expect(captures).toEqual({ n: MEMBERS, distinct_subscribers: MEMBERS });
  }, 180_000);
});
