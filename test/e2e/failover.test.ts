import { createMessageBatch, env, getQueueResult, createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { api } from "../request";
import { createEnvironment, createIntegration, createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { byStep, createWorkflow, messageDetail, settledMessages, trigger, eventually } from "./helpers";

const resendCredentials = { apiKey: "re_test_123", from: "Acme <hi@acme.dev>", webhookSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" };

async function emailEnvironment() {
  const environment = await createEnvironment();
  await createWorkflow(environment.key, {
    key: "receipt",
    steps: [{ id: "mail", type: "email", template: { subject: "Receipt {{ payload.n }}", html: "<p>Thanks</p>" } }],
  });
  return environment;
}

describe("provider failures", () => {
  it("retries a 500 and a 429 (honouring Retry-After), then fails over to the next provider by priority", async () => {
    const { id, key } = await emailEnvironment();
    const first = fakeProviderScenario();
    const second = fakeProviderScenario();
    await first.script([
      { status: 500, body: { statusCode: 500, name: "application_error", message: "boom" } },
      { status: 429, headers: { "retry-after": "1" }, body: { statusCode: 429, name: "rate_limit_exceeded", message: "slow down" } },
    ]);
    await second.script([{ status: 200, body: { id: "re-second-1" } }]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: first.baseUrl,
      primary: true,
      settings: { maxAttempts: 2 },
    });
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: second.baseUrl,
      priority: 1,
    });

    const transactionId = await trigger(key, {
      workflow: "receipt",
      to: { subscriberId: unique("s"), email: "r@example.com" },
      payload: { n: 7 },
    });
    const [message] = await settledMessages(key, transactionId, 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-second-1", attempts: 3, provider: "resend" });

    const calls = await first.captured();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ method: "POST", path: "/emails" });
    expect(calls[0]!.headers.authorization).toBe("Bearer re_test_123");
    expect(JSON.parse(calls[0]!.body)).toEqual({
      from: "Acme <hi@acme.dev>",
      to: ["r@example.com"],
      subject: "Receipt 7",
      html: "<p>Thanks</p>",
      headers: { "List-Unsubscribe": expect.stringMatching(/^<http.*\/u\/.+>$/), "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    expect(calls[0]!.headers["idempotency-key"]).toBe(message!.id);
    expect(await second.captured()).toHaveLength(1);

    const detail = await messageDetail(key, message!.id);
    const retries = detail.events.filter((e) => e.status === "queued" && e.detail);
    expect(retries.map((e) => e.detail?.error)).toEqual(["application_error", "rate_limit_exceeded"]);
    expect(retries[1]!.detail?.nextProvider).toBe("resend");
    expect(detail.events.at(-1)?.status).toBe("sent");
  });

  it("fails the message once every provider's attempts are used up", async () => {
    const { id, key } = await emailEnvironment();
    const only = fakeProviderScenario();
    await only.script([{ status: 503, body: "unavailable" }]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: only.baseUrl,
      primary: true,
      settings: { maxAttempts: 2 },
    });
    const transactionId = await trigger(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "f@example.com" } });
    const [message] = await settledMessages(key, transactionId, 1, 30_000);
    expect(message).toMatchObject({ status: "failed", attempts: 2, error: { code: "http_503" } });
    expect(await only.captured()).toHaveLength(2);
    // The dead-letter queue's consumer leaves the reason on the message's timeline.
    const detail = await eventually(async () => {
      const d = await messageDetail(key, message!.id);
      return d.events.some((e) => e.detail?.deadLettered) ? d : null;
    });
    expect(detail.events.at(-1)).toMatchObject({
      status: "failed",
      detail: { deadLettered: true, reason: expect.stringContaining("http_503") },
    });
  });

  it("fails at once on a permanent error", async () => {
    const { id, key } = await emailEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([{ status: 422, body: { statusCode: 422, name: "invalid_from_address", message: "bad from" } }]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    const transactionId = await trigger(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "p@example.com" } });
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "failed", attempts: 1, error: { code: "invalid_from_address" } });
    expect(await scenario.captured()).toHaveLength(1);
  });
});

describe("redelivery", () => {
  it("never sends a message twice when the Queue delivers a job again", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "once",
      steps: [
        { id: "mail", type: "email", template: { subject: "once", text: "Hello" } },
        { id: "text", type: "sms", template: { body: "once" } },
      ],
    });
    const subscriberId = unique("s");
    const transactionId = await trigger(key, { workflow: "once", to: { subscriberId, email: "o@example.com", phone: "+41791234567" } });
    const before = await settledMessages(key, transactionId, 2);

    const job = { v: 1, type: "recipients", environmentId: id, transactionId, chunk: 0, subscriberIds: [subscriberId] };
    const batch = createMessageBatch("clarion-delivery-0", [
      { id: "again-1", timestamp: new Date(), attempts: 2, body: job },
      { id: "again-2", timestamp: new Date(), attempts: 2, body: job },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["again-1", "again-2"]);

    const after = await settledMessages(key, transactionId, 2);
    expect(after.map((m) => [m.id, m.status, m.attempts])).toEqual(before.map((m) => [m.id, m.status, m.attempts]));
    const captures = await api<{ data: unknown[] }>(key, "GET", `/v1/sandbox/messages?messageId=${byStep(after, "mail").id}`);
    expect(captures.body.data).toHaveLength(1);
  });
});
