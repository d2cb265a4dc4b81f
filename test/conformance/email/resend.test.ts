import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resend } from "../../../src/providers/email/resend";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = { apiKey: "re_123456789", from: "Acme <hi@acme.dev>" };
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "help@acme.dev" };

describe("resend adapter matches the official SDK", () => {
  it("sends the same request as `resend` emails.send", async () => {
    server.answer({ status: 200, body: { id: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" } });
    const sdk = new Resend(credentials.apiKey, { baseUrl: server.url });
    await sdk.emails.send({
      from: credentials.from,
      to: ["ada@example.com"],
      subject: message.subject,
      html: message.html,
      text: message.text,
      replyTo: message.replyTo,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(resend, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    [422, {}, { statusCode: 422, name: "invalid_from_address", message: "Invalid `from` field" }, "permanent", undefined],
    [403, {}, { statusCode: 403, name: "invalid_api_key", message: "API key is invalid" }, "permanent", undefined],
  ])("classifies HTTP %i as %s", async (status, headers, body, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(resend, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code: body.name, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("resend adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer({ status: 200, body: { id: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" } });
    const sdk = new Resend(credentials.apiKey, { baseUrl: server.url });
    await sdk.emails.send({
      from: credentials.from,
      to: ["ada@example.com"],
      subject: message.subject,
      html: message.html,
      text: message.text,
      headers: LIST_UNSUBSCRIBE,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(resend, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    expect(JSON.parse(actual.text).headers).toEqual(LIST_UNSUBSCRIBE);
  });
});
