import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../src/db/client";
import { findSubscriber } from "../../../src/features/subscribers/repository";
import { verifyStandardWebhook } from "../../../src/providers/standard-webhooks";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../../factories";
import { createWorkflow, messageDetail, settledMessages, trigger } from "../helpers";

type Scenario = ReturnType<typeof fakeProviderScenario>;
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
type ChatAddress = { provider: string; webhookUrl: string } | { provider: string; channelId: string };

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const TEXT = "Order 42 shipped";

interface ChatCase {
  provider: string;
  credentials: Record<string, unknown>;
  /** Webhook-URL providers take the fake server's URL as the address; bot-token providers take it as baseUrl. */
  baseUrl: (s: Scenario) => string | null;
  address: (s: Scenario) => ChatAddress;
  /** The provider's success answer and the id Clarion should keep from it (`message` = Clarion's own id). */
  success: Answer;
  providerMessageId: string | "message";
  path: string;
  /** What the provider answers when the destination is gone. */
  gone: Answer;
  checkRequest: (request: { headers: Record<string, string>; body: string }) => void | Promise<void>;
}

const CASES: ChatCase[] = [
  {
    provider: "slack",
    credentials: {},
    baseUrl: () => null,
    address: (s) => ({ provider: "slack", webhookUrl: `${s.baseUrl}/services/T0001/B0001/XXXX` }),
    success: { status: 200, headers: { "content-type": "text/html" }, body: "ok" },
    providerMessageId: "message",
    path: "/services/T0001/B0001/XXXX",
    gone: { status: 404, headers: { "content-type": "text/html" }, body: "no_service" },
    checkRequest: ({ body }) => expect(JSON.parse(body)).toEqual({ text: TEXT }),
  },
  {
    provider: "slack-api",
    credentials: { botToken: "xoxb-1-2-abc" },
    baseUrl: (s) => s.baseUrl,
    address: () => ({ provider: "slack-api", channelId: "C0123ABCD" }),
    success: { status: 200, body: { ok: true, channel: "C0123ABCD", ts: "1503435956.000247", message: { text: TEXT } } },
    providerMessageId: "C0123ABCD:1503435956.000247",
    path: "/api/chat.postMessage",
    gone: { status: 200, body: { ok: false, error: "channel_not_found" } },
    checkRequest: ({ headers, body }) => {
      expect(headers.authorization).toBe("Bearer xoxb-1-2-abc");
      expect(Object.fromEntries(new URLSearchParams(body))).toEqual({ channel: "C0123ABCD", text: TEXT });
    },
  },
  {
    provider: "discord",
    credentials: {},
    baseUrl: () => null,
    address: (s) => ({ provider: "discord", webhookUrl: `${s.baseUrl}/api/webhooks/1234567890/tok-en` }),
    success: { status: 200, body: { id: "1100000000000000001", channel_id: "1000000000000000000", content: TEXT } },
    providerMessageId: "1100000000000000001",
    // Discord hands out unversioned URLs; the adapter calls the version @discordjs/rest uses.
    path: "/api/v10/webhooks/1234567890/tok-en?wait=true",
    gone: { status: 404, body: { message: "Unknown Webhook", code: 10015 } },
    checkRequest: ({ body }) => expect(JSON.parse(body)).toEqual({ content: TEXT }),
  },
  {
    provider: "teams",
    credentials: {},
    baseUrl: () => null,
    address: (s) => ({
      provider: "teams",
      webhookUrl: `${s.baseUrl}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s1g`,
    }),
    success: { status: 202, headers: { "x-ms-workflow-run-id": "08584620000000000000000000000CU00" }, body: "" },
    providerMessageId: "08584620000000000000000000000CU00",
    path: "/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=s1g",
    gone: { status: 404, body: { error: { code: "WorkflowNotFound", message: "The workflow could not be found." } } },
    checkRequest: ({ body }) => {
      const card = JSON.parse(body) as { type: string; attachments: { contentType: string; content: { body: unknown[] } }[] };
      expect(card.type).toBe("message");
      expect(card.attachments[0]!.contentType).toBe("application/vnd.microsoft.card.adaptive");
      expect(card.attachments[0]!.content.body).toEqual([{ type: "TextBlock", text: TEXT, wrap: true }]);
    },
  },
  {
    provider: "telegram",
    credentials: { botToken: "123456:ABC-DEF" },
    baseUrl: (s) => s.baseUrl,
    address: () => ({ provider: "telegram", channelId: "987654321" }),
    success: {
      status: 200,
      body: { ok: true, result: { message_id: 42, chat: { id: 987654321, type: "private" }, date: 1735689600, text: TEXT } },
    },
    providerMessageId: "987654321:42",
    path: "/bot123456:ABC-DEF/sendMessage",
    gone: { status: 403, body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" } },
    checkRequest: ({ body }) => expect(JSON.parse(body)).toEqual({ chat_id: "987654321", text: TEXT }),
  },
  {
    provider: "mattermost",
    credentials: {},
    baseUrl: () => null,
    address: (s) => ({ provider: "mattermost", webhookUrl: `${s.baseUrl}/hooks/xxx-generatedkey-xxx` }),
    success: { status: 200, headers: { "content-type": "text/plain" }, body: "ok" },
    providerMessageId: "message",
    path: "/hooks/xxx-generatedkey-xxx",
    gone: { status: 400, body: { id: "web.incoming_webhook.invalid.app_error", message: "Invalid webhook.", status_code: 400 } },
    checkRequest: ({ body }) => expect(JSON.parse(body)).toEqual({ text: TEXT }),
  },
  {
    provider: "webhook",
    credentials: { secret: SECRET },
    baseUrl: () => null,
    address: (s) => ({ provider: "webhook", webhookUrl: `${s.baseUrl}/hooks/clarion` }),
    success: { status: 204, body: "" },
    providerMessageId: "message",
    path: "/hooks/clarion",
    gone: { status: 410, body: "gone" },
    checkRequest: async ({ headers, body }) => {
      expect(await verifyStandardWebhook(SECRET, new Headers(headers), body)).toBe(true);
      expect(JSON.parse(body)).toMatchObject({ type: "chat.message", data: { text: TEXT } });
    },
  },
];

async function chatSetup(c: ChatCase, answer: Answer) {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  await scenario.script([answer]);
  await createIntegration(id, {
    provider: c.provider,
    channel: "chat",
    credentials: c.credentials,
    baseUrl: c.baseUrl(scenario),
    primary: true,
  });
  await createWorkflow(key, {
    key: "shipped",
    steps: [{ id: "chat", type: "chat", template: { text: "Order {{ payload.orderId }} shipped" } }],
  });
  const subscriberId = unique("s");
  const address = c.address(scenario);
  const transactionId = await trigger(key, {
    workflow: "shipped",
    to: { subscriberId, channels: { chat: [address] } },
    payload: { orderId: 42 },
  });
  const [message] = await settledMessages(key, transactionId, 1);
  // The addresses as stored (every answer masks push tokens and webhook URLs).
  const stored = async () => (await findSubscriber(createDb(env.DB), id, subscriberId))?.channels.chat ?? [];
  return { key, scenario, address, message: message!, stored };
}

describe("chat providers end to end (trigger → Queue → adapter → provider)", () => {
  // None of these providers reports delivery status: `sent` is the final state.
  it.each(CASES)("$provider: sends the rendered message and keeps the provider's id", async (c) => {
    const { key, scenario, address, message, stored } = await chatSetup(c, c.success);
    expect(message).toMatchObject({
      status: "sent",
      provider: c.provider,
      providerMessageId: c.providerMessageId === "message" ? message.id : c.providerMessageId,
      attempts: 1,
    });
    const requests = await scenario.captured();
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "POST", path: c.path });
    await c.checkRequest(requests[0]!);
    expect((await messageDetail(key, message.id)).events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    expect(await stored()).toEqual([address]);
  });

  it.each(CASES)("$provider: marks the message undeliverable and removes the address the provider says is gone", async (c) => {
    const { scenario, message, stored } = await chatSetup(c, c.gone);
    expect(message).toMatchObject({ status: "undeliverable", provider: c.provider, attempts: 1 });
    expect(await scenario.captured()).toHaveLength(1);
    expect(await stored()).toEqual([]);
  });
});
