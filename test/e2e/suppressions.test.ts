import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { suppressions, type SuppressionReason } from "../../src/db/schema";
import type { SuppressionList } from "../../src/features/suppressions/schemas";
import { createEnvironment, createIntegration, createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { api, expectProblem } from "../request";
import { createWorkflow, messageDetail, settledMessages, trigger, postResendWebhook as postWebhookSigned } from "./helpers";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** Puts an address on an environment's list as the delivery path would (normalised). */
async function suppress(
  environmentId: string,
  address: string,
  channel = "email",
  reason: SuppressionReason = "hard_bounce",
  at = new Date(),
) {
  await createDb(env.DB).insert(suppressions).values({ environmentId, address, channel, reason, provider: "test", createdAt: at });
}

const list = (key: string, query = "") => api<SuppressionList>(key, "GET", `/v1/suppressions${query}`);

/** Triggers a one-email workflow and returns its settled message. */
async function sendOnce(key: string, workflow: string, to: Record<string, unknown>) {
  const transactionId = await trigger(key, { workflow, to });
  const [message] = await settledMessages(key, transactionId, 1);
  return message!;
}

const postResendWebhook = (integrationId: string, body: string) => postWebhookSigned(integrationId, body, SECRET);

describe("suppression from a provider's status webhook", () => {
  it("suppresses a Resend hard bounce's address, and the next trigger to it is skipped `suppressed` without a send", async () => {
    const { id, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    const providerId = `re_${unique("id")}`;
    await scenario.script([{ status: 200, body: { id: providerId } }]);
    const integrationId = await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: { apiKey: "re_x", from: "a@acme.dev", webhookSecret: SECRET },
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
    const subscriberId = unique("s");
    const first = await sendOnce(key, "hello", { subscriberId, email: "Gone.Away@Example.com" });
    expect(first.status).toBe("sent");

    const bounce = JSON.stringify({
      type: "email.bounced",
      created_at: new Date().toISOString(),
      data: { email_id: providerId, bounce: { type: "Permanent", message: "550 no such user" } },
    });
    expect((await postResendWebhook(integrationId, bounce)).status).toBe(200);
    expect((await list(key)).body.data).toEqual([
      {
        address: "gone.away@example.com",
        channel: "email",
        reason: "hard_bounce",
        provider: "resend",
        messageId: first.id,
        createdAt: expect.any(String),
      },
    ]);

    const second = await sendOnce(key, "hello", { subscriberId });
    expect(second.status).toBe("skipped");
    const detail = await messageDetail(key, second.id);
    expect(detail.events.map((e) => [e.status, e.detail?.reason])).toEqual([["skipped", "suppressed"]]);
    expect(await scenario.captured()).toHaveLength(1);
  });
});

describe("suppression from a send", () => {
  it("suppresses an address the provider refuses as an invalid recipient (Postmark 406)", async () => {
    const { id, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([
      { status: 422, body: { ErrorCode: 406, Message: "You tried to send to a recipient that has been marked as inactive." } },
    ]);
    await createIntegration(id, {
      provider: "postmark",
      channel: "email",
      credentials: { serverToken: "pm-token", from: "a@acme.dev" },
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
    const message = await sendOnce(key, "hello", { subscriberId: unique("s"), email: "inactive@example.com" });
    expect(message.status).toBe("undeliverable");
    expect((await list(key, "?reason=invalid_recipient")).body.data).toEqual([
      expect.objectContaining({ address: "inactive@example.com", channel: "email", provider: "postmark", messageId: message.id }),
    ]);
  });
});

describe("sends to a suppressed address", () => {
  it("are skipped in a critical workflow too", async () => {
    const { id, key } = await createSandboxEnvironment();
    await suppress(id, "dead@example.com");
    await createWorkflow(key, {
      key: "otp",
      critical: true,
      steps: [{ id: "mail", type: "email", template: { subject: "code", text: "Hello" } }],
    });
    const message = await sendOnce(key, "otp", { subscriberId: unique("s"), email: "DEAD@example.com" });
    expect(message.status).toBe("skipped");
    expect(message.error).toBeNull();
  });

  it("go out again once the suppression is lifted", async () => {
    const { id, key } = await createSandboxEnvironment();
    await suppress(id, "back@example.com");
    await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
    const res = await api(key, "DELETE", `/v1/suppressions/${encodeURIComponent("Back@Example.com")}`);
    expect(res.status).toBe(204);
    expect((await list(key)).body.data).toEqual([]);
    expect((await sendOnce(key, "hello", { subscriberId: unique("s"), email: "back@example.com" })).status).toBe("sent");
  });
});

describe("DELETE /v1/suppressions/{address}", () => {
  it.each([
    ["an email in another case", "ada@example.com", "email", "ADA@example.com"],
    ["a phone with formatting", "+14155552671", "sms", "+1 (415) 555-2671"],
    ["a chat webhook URL", "https://hooks.slack.com/services/T0/B0/XYZ", "chat", "https://hooks.slack.com/services/T0/B0/XYZ"],
  ])("lifts %s", async (_name, stored, channel, given) => {
    const { id, key } = await createEnvironment();
    await suppress(id, stored, channel);
    expect((await api(key, "DELETE", `/v1/suppressions/${encodeURIComponent(given)}`)).status).toBe(204);
    expect((await list(key)).body.data).toEqual([]);
  });

  it("answers 404 for an address not on the list", async () => {
    const { key } = await createEnvironment();
    expectProblem(await api(key, "DELETE", "/v1/suppressions/nobody%40example.com"), 404, "suppression_not_found");
  });
});

describe("GET /v1/suppressions", () => {
  it("pages newest first and filters by channel, reason and address", async () => {
    const { id, key } = await createEnvironment();
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await suppress(id, "old@example.com", "email", "complaint", at(30));
    await suppress(id, "+14155552671", "sms", "unsubscribed", at(20));
    await suppress(id, "new@example.com", "email", "hard_bounce", at(10));

    const first = await list(key, "?limit=2");
    expect(first.body.data.map((s) => s.address)).toEqual(["new@example.com", "+14155552671"]);
    const second = await list(key, `?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ address: "old@example.com" })], nextCursor: null });

    expect((await list(key, "?channel=sms")).body.data.map((s) => s.address)).toEqual(["+14155552671"]);
    expect((await list(key, "?reason=complaint")).body.data.map((s) => s.address)).toEqual(["old@example.com"]);
    expect((await list(key, `?address=${encodeURIComponent("+1 415-555-2671")}`)).body.data.map((s) => s.address)).toEqual([
      "+14155552671",
    ]);
  });

  it("keeps each environment's list to itself", async () => {
    const a = await createSandboxEnvironment();
    const b = await createSandboxEnvironment();
    await suppress(a.id, "shared@example.com");
    expect((await list(b.key)).body.data).toEqual([]);
    expectProblem(await api(b.key, "DELETE", "/v1/suppressions/shared%40example.com"), 404, "suppression_not_found");
    await createWorkflow(b.key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
    expect((await sendOnce(b.key, "hello", { subscriberId: unique("s"), email: "shared@example.com" })).status).toBe("sent");
    expect((await list(a.key)).body.data).toHaveLength(1);
  });

  it.each([
    ["an unknown channel", "?channel=fax", 422, "validation_failed"],
    ["an unknown reason", "?reason=bounced", 422, "validation_failed"],
    ["a limit of 0", "?limit=0", 422, "validation_failed"],
    ["a limit over 200", "?limit=201", 422, "validation_failed"],
    ["a cursor this API did not return", "?cursor=not-a-cursor", 400, "bad_request"],
  ] as const)("answers %s with a problem", async (_name, query, status, code) => {
    const { key } = await createEnvironment();
    expectProblem(await list(key, query), status, code);
  });
});
