import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { triggerJob } from "../../src/jobs/job";
import worker from "../../src/index";
import type { EventList } from "../../src/features/events/schemas";
import { createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { api } from "../request";
import { acceptThenCrash, readTrigger } from "../ledger";
import { createWorkflow } from "../e2e/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";
import { loggedTrigger } from "../log";

describe("the dead-letter consumer", () => {
  it("opens a pack that ran out of retries and fails each of its triggers", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "dead", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const to = () => ({ subscriberId: unique("d"), email: "d@example.com" });
    const triggers = [
      await acceptThenCrash(id, "dead", to(), { loseJob: true }),
      await acceptThenCrash(id, "dead", to(), { loseJob: true }),
    ];
    const jobs = triggers.map((t) => ({ ...triggerJob(id, t.transactionId), ledger: t.ledger }));
    await worker.queue(
      createMessageBatch("clarion-delivery-dlq", [
        { id: "dead-pack", timestamp: new Date(), attempts: 1, body: { v: 1, type: "pack", jobs } },
      ]),
      env,
    );
    for (const t of triggers) {
      expect((await readTrigger(id, t.transactionId))?.state).toBe("failed");
      expect((await loggedTrigger(id, t.transactionId))?.status).toBe("failed");
    }
  });
});

describe("a dead letter about a message", () => {
  it("writes its message.failed event once when the same letter is processed again (a retried pack)", async () => {
    const { id, key } = await createSandboxEnvironment();
    const receiver = fakeProviderScenario();
    const endpoint = await api(key, "POST", "/v1/webhook-endpoints", { url: `${receiver.baseUrl}/events`, events: ["message.failed"] });
    expect(endpoint.status).toBe(201);
    await createWorkflow(key, { key: "letter", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const transactionId = unique("txn");
    await triggerDelivered(key, { workflow: "letter", to: { subscriberId: unique("d"), email: "d@example.com" }, transactionId });
    const [message] = await deliveredMessages(key, transactionId, 1);
    const letter = { job: triggerJob(id, transactionId), reason: "retries_exhausted", messageId: message!.id };
    const sentAt = new Date(Date.now() - 60_000);
    for (let attempt = 1; attempt <= 2; attempt++) {
      await worker.queue(
        createMessageBatch("clarion-delivery-dlq", [{ id: "dead-letter-retried", timestamp: sentAt, attempts: attempt, body: letter }]),
        env,
      );
      // Apart in time, as a retry is: the second run's clock differs from the first's.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const events = await api<EventList>(key, "GET", "/v1/events");
    expect(events.body.data.filter((e) => e.type === "message.failed")).toHaveLength(1);
  });
});
