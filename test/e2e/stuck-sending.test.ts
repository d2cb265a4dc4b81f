import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLAIM_DEADLINE_MS, TriggerObject } from "../../src/durable-objects/trigger-object";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, messageDetail, settledMessages, trigger } from "./helpers";

const stub = (environmentId: string, transactionId: string) =>
  env.TRIGGERS.get(env.TRIGGERS.idFromName(TriggerObject.nameFor(environmentId, transactionId)));

describe("claims in the trigger's Durable Object", () => {
  it("grants a send identity once, refuses it while claimed, and never again once sent", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "claims", steps: [{ id: "mail", type: "email", template: { subject: "s" } }] });
    const transactionId = await trigger(key, { workflow: "claims", to: unique("nobody") });
    const object = stub(id, transactionId);
    expect(await object.claim(["a\u0000x"], [])).toEqual({ granted: ["a\u0000x"], cancelled: [], busy: [] });
    expect(await object.claim(["a\u0000x"], [])).toEqual({ granted: [], cancelled: [], busy: ["a\u0000x"] });
    await object.report([{ key: "a\u0000x", outcome: "sent" }]);
    expect(await object.claim(["a\u0000x"], [])).toEqual({ granted: [], cancelled: [], busy: ["a\u0000x"] });
  });

  it("re-sends a message left in `sending` by a consumer that died, once its claim is past the deadline", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "stuck", steps: [{ id: "mail", type: "email", template: { subject: "stuck" } }] });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "stuck@example.com" });
    const transactionId = await trigger(key, { workflow: "stuck", to: subscriberId });
    // What a consumer that crashed after claiming leaves behind: a claim without a report and a message in `sending`.
    await runInDurableObject(stub(id, transactionId), (_i: TriggerObject, state) => {
      state.storage.sql.exec("INSERT INTO claims (key, state, at) VALUES (?, 'claimed', ?)", `${subscriberId}\u0000mail`, Date.now() - CLAIM_DEADLINE_MS - 1_000);
    });
    const now = Date.now();
    await env.DB.prepare(
      "INSERT INTO messages (id, environment_id, transaction_id, subscriber_id, workflow_key, step_id, channel, status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, 'stuck', 'mail', 'email', 'sending', 0, ?, ?)",
    )
      .bind(`msg_${"0".repeat(28)}dead`, id, transactionId, subscriberId, now, now)
      .run();

    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ id: `msg_${"0".repeat(28)}dead`, status: "sent", attempts: 1 });
    expect((await messageDetail(key, message!.id)).events.map((e) => e.status)).toEqual(["sending", "sent"]);
  });
});
