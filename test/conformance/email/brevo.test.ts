import { BrevoClient } from "@getbrevo/brevo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brevo } from "../../../src/providers/email/brevo";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = { apiKey: "xkeysib-0123456789abcdef", from: "Acme <hi@acme.dev>", webhookToken: "brevo-hook-token" };
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "help@acme.dev" };
const MESSAGE_ID = "<202401011000.12345678901@smtp-relay.mailin.fr>";
const created = { status: 201, body: { messageId: MESSAGE_ID } };

describe("brevo adapter matches the official SDK", () => {
  it("sends the same request as `@getbrevo/brevo` sendTransacEmail", async () => {
    server.answer(created);
    // The SDK's base URL includes /v3; ours replaces the origin only.
    const sdk = new BrevoClient({ apiKey: credentials.apiKey, baseUrl: `${server.url}/v3`, maxRetries: 0 });
    await sdk.transactionalEmails.sendTransacEmail({
      sender: { name: "Acme", email: "hi@acme.dev" },
      to: [{ email: "ada@example.com" }],
      subject: message.subject,
      htmlContent: message.html,
      textContent: message.text,
      replyTo: { email: message.replyTo },
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(brevo, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({ method: "POST", path: "/v3/smtp/email", contentType: "application/json" });
    expect(actual.headers["api-key"]).toBe(expected.headers["api-key"]);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    [
      "429 with x-sib-ratelimit-reset",
      429,
      { "x-sib-ratelimit-reset": "9" },
      { code: "too_many_requests", message: "Too many requests" },
      "retryable",
      "too_many_requests",
      9,
    ],
    [
      "400 invalid parameter",
      400,
      {},
      { code: "invalid_parameter", message: "email is not valid in to" },
      "permanent",
      "invalid_parameter",
      undefined,
    ],
    ["401", 401, {}, { code: "unauthorized", message: "Key not found" }, "permanent", "unauthorized", undefined],
    [
      "402 no credits",
      402,
      {},
      { code: "not_enough_credits", message: "Not enough credits" },
      "permanent",
      "not_enough_credits",
      undefined,
    ],
    [
      "403",
      403,
      {},
      { code: "permission_denied", message: "Unable to send email. Your SMTP account is not yet activated." },
      "permanent",
      "permission_denied",
      undefined,
    ],
  ])("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(brevo, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });
});

describe("brevo webhooks (bearer token, Brevo does not sign)", () => {
  const integration: IntegrationConfig = { id: "int_1", provider: "brevo", channel: "email", credentials, settings: {}, baseUrl: null };

  it("accepts the configured bearer token and refuses others", async () => {
    expect(
      await brevo.webhook!.verify({ headers: new Headers({ authorization: "Bearer brevo-hook-token" }), body: "{}" }, integration),
    ).toBe(true);
    expect(await brevo.webhook!.verify({ headers: new Headers({ authorization: "Bearer other" }), body: "{}" }, integration)).toBe(false);
    expect(await brevo.webhook!.verify({ headers: new Headers(), body: "{}" }, integration)).toBe(false);
    const bare = { ...integration, credentials: { apiKey: "k", from: "a@b.dev" } };
    expect(await brevo.webhook!.verify({ headers: new Headers({ authorization: "Bearer " }), body: "{}" }, bare)).toBe(false);
  });

  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    event: name,
    email: "ada@example.com",
    id: 123456,
    date: "2024-01-01 11:00:00",
    ts: 1704103200,
    "message-id": MESSAGE_ID,
    ts_event: 1704103200,
    subject: "Your receipt",
    ...extra,
  });

  it.each([
    [
      "delivered",
      event("delivered"),
      [{ providerMessageId: MESSAGE_ID, status: "delivered", at: new Date(1704103200_000), detail: { event: "delivered" } }],
    ],
    [
      "a hard bounce",
      event("hard_bounce", { reason: "550 unknown user" }),
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "bounced",
          at: new Date(1704103200_000),
          detail: { event: "hard_bounce", reason: "550 unknown user" },
          suppress: "hard_bounce",
        },
      ],
    ],
    ["a soft bounce (Brevo retries)", event("soft_bounce"), []],
    [
      "spam",
      event("spam"),
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "undeliverable",
          at: new Date(1704103200_000),
          detail: { event: "spam" },
          suppress: "complaint",
        },
      ],
    ],
    [
      "an unsubscribe, which changes no status but suppresses the address",
      event("unsubscribed"),
      [{ providerMessageId: MESSAGE_ID, at: new Date(1704103200_000), detail: { event: "unsubscribed" }, suppress: "unsubscribed" }],
    ],
    [
      "a batch",
      [event("request"), event("unique_opened"), event("click")],
      [
        { providerMessageId: MESSAGE_ID, status: "opened", at: new Date(1704103200_000), detail: { event: "unique_opened" } },
        { providerMessageId: MESSAGE_ID, status: "clicked", at: new Date(1704103200_000), detail: { event: "click" } },
      ],
    ],
  ])("parses %s", (_name, body, expected) => {
    expect(brevo.webhook!.parse(JSON.stringify(body))).toEqual(expected);
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("brevo adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer(created);
    const sdk = new BrevoClient({ apiKey: credentials.apiKey, baseUrl: `${server.url}/v3`, maxRetries: 0 });
    await sdk.transactionalEmails.sendTransacEmail({
      sender: { name: "Acme", email: "hi@acme.dev" },
      to: [{ email: "ada@example.com" }],
      subject: message.subject,
      htmlContent: message.html,
      textContent: message.text,
      headers: LIST_UNSUBSCRIBE,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(brevo, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    expect(JSON.parse(actual.text).headers).toEqual(LIST_UNSUBSCRIBE);
  });
});
