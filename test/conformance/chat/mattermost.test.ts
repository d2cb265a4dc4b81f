import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mattermost } from "../../../src/providers/chat/mattermost";
import { sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";

// `@mattermost/client` has no incoming-webhook helper: the request is checked against the documented one (providers.md §4.6).
let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const path = "/hooks/xxx-generatedkey-xxx";
const content = { text: "Deploy **finished** for acme :tada:" };

describe("mattermost (incoming webhook) adapter sends the documented request", () => {
  it("posts the Markdown text as JSON to the hook URL", async () => {
    server.answer({ status: 200, headers: { "content-type": "text/plain" }, body: "ok" });
    const { outcome } = await sendWith(
      mattermost,
      { credentials: { username: "clarion", iconUrl: "https://acme.dev/bot.png" }, baseUrl: null },
      { to: `${server.url}${path}`, content, messageId: "msg_mm_1", providerOverrides: { props: { card: "details" } } },
    );
    const request = server.requests.at(-1)!;
    expect(outcome).toEqual({ ok: true, providerMessageId: "msg_mm_1" });
    expect(request.method).toBe("POST");
    expect(request.path).toBe(path);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.parse(request.text)).toEqual({
      text: content.text,
      username: "clarion",
      icon_url: "https://acme.dev/bot.png",
      props: { card: "details" },
    });
  });

  it("sends a self-hosted server's hook through the integration's baseUrl when one is set", async () => {
    server.answer({ status: 200, body: "ok" });
    await sendWith(mattermost, { credentials: {}, baseUrl: `${server.url}/proxy` }, { to: `https://chat.acme.dev${path}`, content });
    expect(server.requests.at(-1)!.path).toBe(`/proxy${path}`);
  });

  const error = (id: string, status: number, message: string) => ({
    id,
    message,
    detailed_error: "",
    request_id: "r1q2",
    status_code: status,
  });
  it.each([
    [
      400,
      {},
      error("web.incoming_webhook.text.app_error", 400, "No text specified."),
      "web.incoming_webhook.text.app_error",
      "permanent",
      undefined,
    ],
    [
      403,
      {},
      error("web.incoming_webhook.channel_locked.app_error", 403, "This webhook is not permitted to post to the requested channel."),
      "web.incoming_webhook.channel_locked.app_error",
      "permanent",
      undefined,
    ],
    [
      501,
      {},
      error("web.incoming_webhook.disabled.app_error", 501, "Incoming webhooks have been disabled by the system admin."),
      "web.incoming_webhook.disabled.app_error",
      "permanent",
      undefined,
    ],
    [404, {}, "404 page not found", "http_404", "permanent", undefined],
  ])("classifies HTTP %i %j as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(mattermost, { credentials: {}, baseUrl: null }, { to: `${server.url}${path}`, content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});
