import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhook } from "../../../src/providers/chat/webhook";
import { sendWith } from "../adapter";
import { startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const content = { text: "Deploy finished for acme", blocks: [{ type: "section", text: "Deploy *finished*" }] };
const headersOf = (h: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

describe("webhook (Standard Webhooks) adapter", () => {
  it("posts JSON that the official standardwebhooks library verifies with the integration's secret", async () => {
    server.answer({ status: 204 });
    const { outcome } = await sendWith(
      webhook,
      { credentials: { secret }, baseUrl: null },
      { to: `${server.url}/hooks/clarion?team=7`, content, messageId: "msg_wh_1" },
    );
    const request = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "msg_wh_1" });
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/clarion?team=7");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toBe("msg_wh_1");
    expect(request.headers["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(10);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const verified = new Webhook(secret).verify(request.text, headersOf(request.headers));
    expect(verified).toEqual({
      type: "chat.message",
      timestamp: new Date(Number(request.headers["webhook-timestamp"]) * 1000).toISOString(),
      data: { messageId: "msg_wh_1", subscriberId: "sub-1", text: content.text, blocks: content.blocks },
    });
  });

  it("produces a signature the library rejects once the body is tampered with or the secret differs", async () => {
    server.answer({ status: 200 });
    await sendWith(webhook, { credentials: { secret }, baseUrl: null }, { to: `${server.url}/hooks/clarion`, content });
    const request = server.requests.at(-1)!;
    const headers = headersOf(request.headers);
    expect(() => new Webhook(secret).verify(request.text.replace("acme", "evil"), headers)).toThrow();
    expect(() => new Webhook("whsec_d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldA==").verify(request.text, headers)).toThrow();
  });

  it("keeps webhook-id stable across retries of the same message", async () => {
    server.reset();
    server.answer({ status: 503 }, { status: 200 });
    await sendWith(
      webhook,
      { credentials: { secret }, baseUrl: null },
      { to: `${server.url}/hooks/clarion`, content, messageId: "msg_wh_2" },
    );
    await sendWith(
      webhook,
      { credentials: { secret }, baseUrl: null },
      { to: `${server.url}/hooks/clarion`, content, messageId: "msg_wh_2" },
    );
    expect(server.requests.map((r) => r.headers["webhook-id"])).toEqual(["msg_wh_2", "msg_wh_2"]);
  });

  it("rejects a secret without the whsec_ prefix in its credentials form", () => {
    expect(webhook.credentials.safeParse({ secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }).success).toBe(false);
    expect(webhook.credentials.safeParse({ secret: "whsec_not base64!" }).success).toBe(false);
    expect(webhook.credentials.safeParse({ secret }).success).toBe(true);
  });

  it.each([
    [408, {}, "timeout", "http_408", "retryable", undefined],
    [400, {}, "bad request", "http_400", "permanent", undefined],
    [401, {}, "unauthorized", "http_401", "permanent", undefined],
    [404, {}, "not found", "http_404", "permanent", undefined],
  ])("classifies HTTP %i as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(webhook, { credentials: { secret }, baseUrl: null }, { to: `${server.url}/hooks/clarion`, content });
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});
