import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { triggerJob } from "../../src/delivery/job";
import worker from "../../src/index";
import { createSandboxEnvironment, unique } from "../factories";
import { acceptThenCrash, readTrigger } from "../ledger";
import { createWorkflow } from "../e2e/helpers";

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
      const row = await env.DB.prepare("SELECT status FROM triggers WHERE environment_id = ? AND transaction_id = ?")
        .bind(id, t.transactionId)
        .first<{ status: string }>();
      expect(row?.status).toBe("failed");
    }
  });
});
