import FormData from "form-data";
import Mailgun from "mailgun.js";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailgun } from "../../../src/providers/email/mailgun";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type Captured, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const credentials = {
  apiKey: "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
  domain: "mg.acme.dev",
  from: "Acme <hi@mg.acme.dev>",
  webhookSigningKey: "whk-signing-key",
};
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "help@acme.dev" };
const MESSAGE_ID = "20240101100000.1.ABCDEF@mg.acme.dev";
const queued = { status: 200, body: { id: `<${MESSAGE_ID}>`, message: "Queued. Thank you." } };

/** The multipart body's fields, sorted, so field order does not matter. */
async function formFields(request: Captured) {
  const form = await new Request("http://x", {
    method: "POST",
    headers: { "content-type": String(request.headers["content-type"]) },
    body: new Uint8Array(request.body),
  }).formData();
  const fields: [string, string][] = [];
  form.forEach((value, name) => {
    fields.push([name, String(value)]);
  });
  return fields.sort();
}

describe("mailgun adapter matches the official SDK", () => {
  it("sends the same request as `mailgun.js` messages.create", async () => {
    server.answer(queued);
    const sdk = new Mailgun(FormData).client({ username: "api", key: credentials.apiKey, url: server.url });
    await sdk.messages.create(credentials.domain, {
      from: credentials.from,
      to: ["ada@example.com"],
      subject: message.subject,
      text: message.text,
      html: message.html,
      "h:Reply-To": message.replyTo,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(mailgun, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({
      method: "POST",
      path: "/v3/mg.acme.dev/messages",
      contentType: "multipart/form-data",
      authScheme: "Basic",
    });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(Buffer.from(String(actual.headers.authorization).slice(6), "base64").toString()).toBe(`api:${credentials.apiKey}`);
    expect(await formFields(actual)).toEqual(await formFields(expected));
  });

  it("sends to the EU region through baseUrl", async () => {
    server.answer(queued);
    await sendWith(mailgun, { credentials, baseUrl: `${server.url}/eu-proxy` }, { to: "ada@example.com", content: message });
    expect(server.requests.at(-1)!.path).toBe("/eu-proxy/v3/mg.acme.dev/messages");
  });

  it.each([
    ["400 bad address", 400, {}, { message: "to parameter is not a valid address. please check documentation" }, "permanent", undefined],
    ["401 (plain text)", 401, { "content-type": "text/plain" }, "Forbidden", "permanent", undefined],
    ["404 unknown domain", 404, {}, { message: "Domain not found: mg.acme.dev" }, "permanent", undefined],
    ["413", 413, {}, { message: "Request Entity Too Large" }, "permanent", undefined],
  ])("classifies %s", async (_name, status, headers, body, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(mailgun, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code: `http_${status}`, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });
});

describe("mailgun webhooks", () => {
  const integration: IntegrationConfig = { id: "int_1", provider: "mailgun", channel: "email", credentials, settings: {}, baseUrl: null };
  const payload = (
    eventData: Record<string, unknown>,
    timestamp = String(Math.floor(Date.now() / 1000)),
    key = credentials.webhookSigningKey,
  ) => {
    const token = "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0";
    const signature = createHmac("sha256", key)
      .update(timestamp + token)
      .digest("hex");
    return JSON.stringify({ signature: { timestamp, token, signature }, "event-data": eventData });
  };
  const delivered = {
    event: "delivered",
    id: "CPgfbmQMTCKtHW6uIWtuVe",
    timestamp: 1704103200.5,
    recipient: "ada@example.com",
    message: { headers: { "message-id": MESSAGE_ID } },
  };

  it("accepts a body signed with the webhook signing key", async () => {
    expect(await mailgun.webhook!.verify({ headers: new Headers(), body: payload(delivered) }, integration)).toBe(true);
  });

  it("names each delivery by its signature token, which the signature covers", () => {
    expect(mailgun.webhook!.replayKey!({ headers: new Headers(), body: payload(delivered) })).toBe(
      "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0",
    );
  });

  it.each([
    ["another key", () => payload(delivered, undefined, "other-key")],
    ["a changed token", () => payload(delivered).replace('"token":"a8', '"token":"b8')],
    ["a stale timestamp", () => payload(delivered, String(Math.floor(Date.now() / 1000) - 3600))],
    ["a body that is not JSON", () => "signature=abc"],
  ])("refuses %s", async (_name, body) => {
    expect(await mailgun.webhook!.verify({ headers: new Headers(), body: body() }, integration)).toBe(false);
  });

  it.each([
    [
      "delivered",
      delivered,
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "delivered",
          at: new Date(1704103200500),
          detail: { event: "delivered" },
          eventId: delivered.id,
        },
      ],
    ],
    [
      "a permanent failure",
      { ...delivered, event: "failed", severity: "permanent", reason: "bounce", "delivery-status": { code: 550, message: "No such user" } },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "bounced",
          at: new Date(1704103200500),
          detail: { event: "failed", severity: "permanent", reason: "bounce" },
          suppress: "hard_bounce",
          eventId: delivered.id,
        },
      ],
    ],
    ["a temporary failure (Mailgun retries)", { ...delivered, event: "failed", severity: "temporary", reason: "generic" }, []],
    [
      "a complaint",
      { ...delivered, event: "complained" },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "undeliverable",
          at: new Date(1704103200500),
          detail: { event: "complained" },
          suppress: "complaint",
          eventId: delivered.id,
        },
      ],
    ],
    [
      "an open",
      { ...delivered, event: "opened" },
      [
        {
          providerMessageId: MESSAGE_ID,
          status: "opened",
          at: new Date(1704103200500),
          detail: { event: "opened" },
          eventId: delivered.id,
        },
      ],
    ],
    [
      "an unsubscribe, which changes no status but suppresses the address",
      { ...delivered, event: "unsubscribed" },
      [
        {
          providerMessageId: MESSAGE_ID,
          at: new Date(1704103200500),
          detail: { event: "unsubscribed" },
          suppress: "unsubscribed",
          eventId: delivered.id,
        },
      ],
    ],
  ])("parses %s", (_name, event, expected) => {
    expect(mailgun.webhook!.parse(payload(event))).toEqual(expected);
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("mailgun adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer(queued);
    const sdk = new Mailgun(FormData).client({ username: "api", key: credentials.apiKey, url: server.url });
    await sdk.messages.create(credentials.domain, {
      from: credentials.from,
      to: ["ada@example.com"],
      subject: message.subject,
      text: message.text,
      html: message.html,
      "h:List-Unsubscribe": LIST_UNSUBSCRIBE["List-Unsubscribe"],
      "h:List-Unsubscribe-Post": LIST_UNSUBSCRIBE["List-Unsubscribe-Post"],
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(mailgun, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(await formFields(actual)).toEqual(await formFields(expected));
    expect(await formFields(actual)).toContainEqual(["h:List-Unsubscribe-Post", "List-Unsubscribe=One-Click"]);
  });
});
