import { IncomingWebhook } from "@slack/webhook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slack } from "../../../src/providers/chat/slack";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const path = "/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
const content = {
  text: "Deploy *finished* for <https://acme.dev|acme>",
  blocks: [{ type: "section", text: { type: "mrkdwn", text: "Deploy *finished*" } }],
};

describe("slack (incoming webhook) adapter matches the official SDK", () => {
  it("sends the same request as @slack/webhook IncomingWebhook.send", async () => {
    server.answer({ status: 200, body: "ok" });
    await new IncomingWebhook(`${server.url}${path}`).send({ text: content.text, blocks: content.blocks });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(
      slack,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}${path}`, content, messageId: "msg_slack_1" },
    );
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "msg_slack_1" });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe(path);
    expect(actual.headers.authorization).toBeUndefined();
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("sends to the integration's baseUrl in place of the webhook URL's origin", async () => {
    server.reset();
    server.answer({ status: 200, body: "ok" });
    const { outcome } = await sendWith(slack, { credentials: {}, baseUrl: server.url }, { to: `https://hooks.slack.com${path}`, content });
    expect(outcome.ok).toBe(true);
    expect(server.requests.at(-1)!.path).toBe(path);
  });

  it("answers invalid_recipient without a request for an address that is not a URL", async () => {
    server.reset();
    const { outcome } = await sendWith(slack, { credentials: {}, baseUrl: null }, { to: "C0123ABCD", content });
    expect(outcome).toMatchObject({ ok: false, kind: "invalid_recipient", code: "invalid_webhook_url" });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [400, {}, "invalid_payload", "invalid_payload", "permanent", undefined],
    [400, {}, "no_text", "no_text", "permanent", undefined],
    [403, {}, "action_prohibited", "action_prohibited", "permanent", undefined],
    [403, {}, "invalid_token", "invalid_token", "permanent", undefined],
    [404, {}, "channel_not_found", "channel_not_found", "invalid_recipient", undefined],
    [404, {}, "Not Found", "http_404", "permanent", undefined],
    [410, {}, "channel_is_archived", "channel_is_archived", "invalid_recipient", undefined],
  ])("classifies HTTP %i %s as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers: { "content-type": "text/html", ...headers }, body });
    const { outcome } = await sendWith(slack, { credentials: {}, baseUrl: null }, { to: `${server.url}${path}`, content });
    expect(outcome).toEqual({ ok: false, kind, code, message: body, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });
});
