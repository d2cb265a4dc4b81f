import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { telegram } from "../../../src/providers/chat/telegram";
import { localOutbound, sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";

// Telegram publishes no official Node SDK: the request is checked against the documented one (providers.md §4.5).
let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = { botToken: "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw" };
const content = { text: "Deploy finished for acme" };
const sent = (chatId: number, messageId: number) => ({
  ok: true,
  result: {
    message_id: messageId,
    from: { id: 123456789, is_bot: true, first_name: "Clarion" },
    chat: { id: chatId, type: "private" },
    date: 1735689600,
    text: content.text,
  },
});
const failed = (error_code: number, description: string, parameters?: Record<string, number>) => ({
  ok: false,
  error_code,
  description,
  ...(parameters ? { parameters } : {}),
});

describe("telegram (Bot API sendMessage) adapter sends the documented request", () => {
  it("posts chat_id and text as JSON to /bot<token>/sendMessage", async () => {
    server.answer({ status: 200, body: sent(987654321, 42) });
    const { outcome } = await sendWith(
      telegram,
      { credentials: { ...credentials, parseMode: "HTML" }, baseUrl: server.url },
      {
        to: "987654321",
        content,
        providerOverrides: { disable_notification: true },
      },
    );
    const request = server.requests.at(-1)!;
    expect(outcome).toEqual({ ok: true, providerMessageId: "987654321:42" });
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/bot${credentials.botToken}/sendMessage`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.text)).toEqual({ chat_id: "987654321", text: content.text, parse_mode: "HTML", disable_notification: true });
  });

  it("resends to the supergroup a group was upgraded to", async () => {
    server.reset();
    server.answer(
      {
        status: 400,
        body: failed(400, "Bad Request: group chat was upgraded to a supergroup chat", { migrate_to_chat_id: -1001234567890 }),
      },
      { status: 200, body: sent(-1001234567890, 7) },
    );
    const { outcome } = await sendWith(telegram, { credentials, baseUrl: server.url }, { to: "-123456", content });
    expect(outcome).toEqual({ ok: true, providerMessageId: "-1001234567890:7" });
    expect(server.requests.map((r) => (JSON.parse(r.text) as { chat_id: unknown }).chat_id)).toEqual(["-123456", -1001234567890]);
  });

  it.each([
    [429, {}, failed(429, "Too Many Requests: retry after 35", { retry_after: 35 }), "too_many_requests", "retryable", 35],
    [401, {}, failed(401, "Unauthorized"), "unauthorized", "permanent", undefined],
    [400, {}, failed(400, "Bad Request: message is too long"), "message_is_too_long", "permanent", undefined],
    [
      400,
      {},
      failed(400, "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 5"),
      "can_t_parse_entities",
      "permanent",
      undefined,
    ],
    [400, {}, failed(400, "Bad Request: chat not found"), "chat_not_found", "invalid_recipient", undefined],
    [403, {}, failed(403, "Forbidden: user is deactivated"), "user_is_deactivated", "invalid_recipient", undefined],
    [
      403,
      {},
      failed(403, "Forbidden: bot was kicked from the group chat"),
      "bot_was_kicked_from_the_group_chat",
      "invalid_recipient",
      undefined,
    ],
  ])("classifies HTTP %i %j as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(telegram, { credentials, baseUrl: server.url }, { to: "987654321", content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});

describe("telegram check", () => {
  const integration = (baseUrl: string) => ({
    id: "int_1",
    provider: "telegram",
    channel: "chat" as const,
    credentials,
    settings: {},
    baseUrl,
  });

  it("verifies the token with getMe, which sends nothing", async () => {
    server.reset();
    server.answer({
      status: 200,
      body: { ok: true, result: { id: 123456789, is_bot: true, first_name: "Clarion", username: "clarion_bot" } },
    });
    const result = await telegram.check!(integration(server.url), localOutbound());
    expect(result).toEqual({ ok: true, detail: "The token belongs to @clarion_bot." });
    expect(server.requests.at(-1)).toMatchObject({ method: "GET", path: `/bot${credentials.botToken}/getMe` });
  });

  it("reports a refused token without echoing it", async () => {
    server.answer({ status: 401, body: failed(401, "Unauthorized") });
    const result = await telegram.check!(integration(server.url), localOutbound());
    expect(result).toEqual({ ok: false, detail: "Telegram refused the token: Unauthorized." });
  });
});
