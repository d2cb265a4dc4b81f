import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { teams } from "../../../src/providers/chat/teams";
import { sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";

// Microsoft publishes no SDK for Workflows webhooks: the request is checked against the documented one (providers.md §4.4).
let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const path =
  "/workflows/8b3f2c1d0a/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=AbCdEf0123456789";
const content = { text: "Deploy **finished** for acme" };

describe("teams (Workflows webhook) adapter sends the documented Adaptive Card request", () => {
  it("posts a message with one Adaptive Card attachment to the Workflows URL, signature query kept", async () => {
    server.answer({ status: 202, headers: { "x-ms-workflow-run-id": "08584620000000000000000000000CU00" }, body: "" });
    const { outcome } = await sendWith(teams, { credentials: {}, baseUrl: null }, { to: `${server.url}${path}`, content });
    const request = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "08584620000000000000000000000CU00" });
    expect(request.method).toBe("POST");
    expect(request.path).toBe(path);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.text)).toEqual({
      type: "message",
      attachments: [
        {
          contentType: "application/vnd.microsoft.card.adaptive",
          contentUrl: null,
          content: {
            $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
            type: "AdaptiveCard",
            version: "1.4",
            body: [{ type: "TextBlock", text: content.text, wrap: true }],
          },
        },
      ],
    });
  });

  it("keeps Clarion's message id when the flow's answer names no run", async () => {
    server.answer({ status: 202, body: "" });
    const { outcome } = await sendWith(
      teams,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}${path}`, content, messageId: "msg_teams_1" },
    );
    expect(outcome).toEqual({ ok: true, providerMessageId: "msg_teams_1" });
  });

  it.each([
    [
      400,
      {},
      { error: { code: "InvalidRequestContent", message: "The request content is not valid." } },
      "InvalidRequestContent",
      "permanent",
      undefined,
    ],
    [
      401,
      {},
      { error: { code: "DirectApiAuthorizationRequired", message: "The request must be authenticated." } },
      "DirectApiAuthorizationRequired",
      "permanent",
      undefined,
    ],
    [
      403,
      {},
      { error: { code: "AuthorizationFailed", message: "The signature is invalid." } },
      "AuthorizationFailed",
      "permanent",
      undefined,
    ],
    [404, {}, "Not Found", "http_404", "permanent", undefined],
  ])("classifies HTTP %i %j as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(teams, { credentials: {}, baseUrl: null }, { to: `${server.url}${path}`, content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});
