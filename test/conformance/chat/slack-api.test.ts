import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackApi } from "../../../src/providers/chat/slack-api";
import { localOutbound, sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = { botToken: "xoxb-123-456-abcdef" };
const content = {
  text: "Deploy finished: 3 services & 1 job + more",
  blocks: [{ type: "section", text: { type: "mrkdwn", text: "Deploy *finished*" } }],
};
const posted = {
  ok: true,
  channel: "C0123ABCD",
  ts: "1503435956.000247",
  message: { text: content.text, ts: "1503435956.000247", type: "message" },
};
const form = (text: string) => Object.fromEntries(new URLSearchParams(text));

describe("slack-api (chat.postMessage) adapter matches the official SDK", () => {
  it("sends the same request as @slack/web-api chat.postMessage", async () => {
    server.answer({ status: 200, body: posted });
    const sdk = new WebClient(credentials.botToken, { slackApiUrl: `${server.url}/api/`, retryConfig: { retries: 0 } });
    await sdk.chat.postMessage({ channel: "C0123ABCD", text: content.text, blocks: content.blocks });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(slackApi, { credentials, baseUrl: server.url }, { to: "C0123ABCD", content });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "C0123ABCD:1503435956.000247" });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe("/api/chat.postMessage");
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(actual.headers.authorization).toBe("Bearer xoxb-123-456-abcdef");
    expect(form(actual.text)).toEqual(form(expected.text));
    expect(JSON.parse(form(actual.text).blocks!)).toEqual(content.blocks);
  });

  it("merges overrides.slack-api into the form (nested values as JSON, like the SDK)", async () => {
    server.reset();
    server.answer({ status: 200, body: posted });
    await sendWith(
      slackApi,
      { credentials, baseUrl: server.url },
      {
        to: "C0123ABCD",
        content: { text: "hi" },
        providerOverrides: {
          thread_ts: "1503435956.000100",
          unfurl_links: false,
          metadata: { event_type: "deploy", event_payload: { id: 1 } },
        },
      },
    );
    expect(form(server.requests.at(-1)!.text)).toEqual({
      channel: "C0123ABCD",
      text: "hi",
      thread_ts: "1503435956.000100",
      unfurl_links: "false",
      metadata: JSON.stringify({ event_type: "deploy", event_payload: { id: 1 } }),
    });
  });

  it.each([
    [200, {}, { ok: false, error: "internal_error" }, "internal_error", "retryable", undefined],
    [200, {}, { ok: false, error: "fatal_error" }, "fatal_error", "retryable", undefined],
    [200, {}, { ok: false, error: "invalid_auth" }, "invalid_auth", "permanent", undefined],
    [200, {}, { ok: false, error: "not_authed" }, "not_authed", "permanent", undefined],
    [
      200,
      {},
      { ok: false, error: "missing_scope", needed: "chat:write", provided: "channels:read" },
      "missing_scope",
      "permanent",
      undefined,
    ],
    [200, {}, { ok: false, error: "invalid_blocks", errors: ["must provide an array"] }, "invalid_blocks", "permanent", undefined],
    [200, {}, { ok: false, error: "msg_too_long" }, "msg_too_long", "permanent", undefined],
    [200, {}, { ok: false, error: "token_revoked" }, "token_revoked", "permanent", undefined],
    [200, {}, { ok: false, error: "is_archived" }, "is_archived", "invalid_recipient", undefined],
    [200, {}, { ok: false, error: "not_in_channel" }, "not_in_channel", "invalid_recipient", undefined],
  ])("classifies HTTP %i %j as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(slackApi, { credentials, baseUrl: server.url }, { to: "C0123ABCD", content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});

describe("slack-api check", () => {
  const integration = (baseUrl: string) => ({
    id: "int_1",
    provider: "slack-api",
    channel: "chat" as const,
    credentials,
    settings: {},
    baseUrl,
  });

  it("verifies the token with auth.test, which posts nothing", async () => {
    server.reset();
    server.answer({ status: 200, body: { ok: true, url: "https://acme.slack.com/", team: "Acme", user: "clarion", bot_id: "B01" } });
    const result = await slackApi.check!(integration(server.url), localOutbound());
    expect(result).toEqual({ ok: true, detail: "The token works as clarion in Acme." });
    expect(server.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/api/auth.test",
      headers: { authorization: "Bearer xoxb-123-456-abcdef" },
    });
  });

  it("reports a refused token without echoing it", async () => {
    server.answer({ status: 200, body: { ok: false, error: "invalid_auth" } });
    const result = await slackApi.check!(integration(server.url), localOutbound());
    expect(result).toEqual({ ok: false, detail: "Slack refused the token: invalid_auth." });
  });
});
