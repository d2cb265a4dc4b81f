import { describe, expect, it } from "vitest";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { createWorkflow, messageDetail, settledMessages, trigger } from "./helpers";

// A provider that accepts the message but answers after the integration's timeout: the send
// happened, Clarion cannot know it. Retrying or failing over would send it again.
// The timeout leaves a prompt answer room on a loaded two-core machine (300 ms did not, beside another test file).
const LATE = { status: 200, delayMs: 3000 };
const TIMEOUT_MS = 1000;

const resendCredentials = { apiKey: "re_test_123", from: "Acme <hi@acme.dev>" };
const postmarkCredentials = { serverToken: "pm_test_123", from: "Acme <hi@acme.dev>" };

async function emailEnvironment() {
  const environment = await createEnvironment();
  await createWorkflow(environment.key, {
    key: "receipt",
    steps: [{ id: "mail", type: "email", template: { subject: "Receipt", text: "Hello" } }],
  });
  return environment;
}

async function backup(environmentId: string) {
  const scenario = fakeProviderScenario();
  await scenario.script([{ status: 200, body: { id: "re-backup" } }]);
  await createIntegration(environmentId, {
    provider: "resend",
    channel: "email",
    credentials: resendCredentials,
    baseUrl: scenario.baseUrl,
    priority: 5,
  });
  return scenario;
}

const send = (key: string) => trigger(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "u@example.com" } });

describe("a provider that answers after the timeout", () => {
  it("fails the message with outcome_unknown after one call to a provider that does not deduplicate, without failing over", async () => {
    const { id, key } = await emailEnvironment();
    const slow = fakeProviderScenario();
    await slow.script([{ ...LATE, body: { MessageID: "pm-late", ErrorCode: 0, Message: "OK" } }]);
    await createIntegration(id, {
      provider: "postmark",
      channel: "email",
      credentials: postmarkCredentials,
      baseUrl: slow.baseUrl,
      primary: true,
      settings: { timeoutMs: TIMEOUT_MS, maxAttempts: 3 },
    });
    const failover = await backup(id);

    const [message] = await settledMessages(key, await send(key), 1, 30_000);
    expect(message).toMatchObject({ status: "failed", attempts: 1, provider: "postmark", error: { code: "outcome_unknown" } });
    expect(await slow.captured()).toHaveLength(1);
    expect(await failover.captured()).toHaveLength(0);
    const detail = await messageDetail(key, message!.id);
    expect(detail.events.at(-1)).toMatchObject({
      status: "failed",
      detail: { error: "outcome_unknown", cause: "timeout", provider: "postmark" },
    });
  });

  it("retries a provider that deduplicates with the same idempotency key, and never fails over", async () => {
    const { id, key } = await emailEnvironment();
    const slow = fakeProviderScenario();
    await slow.script([{ ...LATE, body: { id: "re-late" } }]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: slow.baseUrl,
      primary: true,
      settings: { timeoutMs: TIMEOUT_MS, maxAttempts: 2 },
    });
    const failover = await backup(id);

    const [message] = await settledMessages(key, await send(key), 1, 30_000);
    expect(message).toMatchObject({ status: "failed", attempts: 2, error: { code: "outcome_unknown" } });
    const calls = await slow.captured();
    expect(calls.map((c) => c.headers["idempotency-key"])).toEqual([message!.id, message!.id]);
    expect(await failover.captured()).toHaveLength(0);
    const detail = await messageDetail(key, message!.id);
    const retry = detail.events.find((e) => e.status === "queued" && e.detail);
    expect(retry?.detail).toMatchObject({ error: "timeout", outcome: "unknown", nextProvider: "resend" });
  });

  it("is sent once the deduplicating provider answers a retry in time", async () => {
    const { id, key } = await emailEnvironment();
    const slow = fakeProviderScenario();
    await slow.script([
      { ...LATE, body: { id: "re-1" } },
      { status: 200, body: { id: "re-1" } },
    ]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: slow.baseUrl,
      primary: true,
      settings: { timeoutMs: TIMEOUT_MS, maxAttempts: 3 },
    });
    const [message] = await settledMessages(key, await send(key), 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-1", attempts: 2 });
  });

  it("fails over after a timeout when the integration opts in with failoverOnTimeout", async () => {
    const { id, key } = await emailEnvironment();
    const slow = fakeProviderScenario();
    await slow.script([{ ...LATE, body: { MessageID: "pm-late", ErrorCode: 0, Message: "OK" } }]);
    await createIntegration(id, {
      provider: "postmark",
      channel: "email",
      credentials: postmarkCredentials,
      baseUrl: slow.baseUrl,
      primary: true,
      settings: { timeoutMs: TIMEOUT_MS, maxAttempts: 1, failoverOnTimeout: true },
    });
    const failover = await backup(id);

    const [message] = await settledMessages(key, await send(key), 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-backup", attempts: 2 });
    expect(await slow.captured()).toHaveLength(1);
    expect(await failover.captured()).toHaveLength(1);
  });
});
