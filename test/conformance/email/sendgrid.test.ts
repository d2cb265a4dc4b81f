import { EventWebhook } from "@sendgrid/eventwebhook";
import { Client } from "@sendgrid/client";
import { MailService } from "@sendgrid/mail";
import { generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendgrid } from "../../../src/providers/email/sendgrid";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const keys = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const verificationKey = keys.publicKey.export({ type: "spki", format: "der" }).toString("base64");
const credentials = { apiKey: "SG.test-key.abcdef", from: "Acme <hi@acme.dev>", webhookVerificationKey: verificationKey };
const message = { subject: "Your receipt", html: "<p>Thanks</p>", text: "Thanks", replyTo: "Help <help@acme.dev>" };
const X_MESSAGE_ID = "W86EgYT6SQKk0lRflfLRsA";
const accepted = { status: 202, headers: { "x-message-id": X_MESSAGE_ID }, body: "" };

describe("sendgrid adapter matches the official SDK", () => {
  it("sends the same request as `@sendgrid/mail` send", async () => {
    server.answer(accepted);
    const client = new Client();
    client.setApiKey(credentials.apiKey);
    client.setDefaultRequest("baseUrl", `${server.url}/`);
    const sdk = new MailService();
    sdk.setClient(client);
    await sdk.send({
      from: credentials.from,
      to: "ada@example.com",
      subject: message.subject,
      html: message.html,
      text: message.text,
      replyTo: message.replyTo,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(sendgrid, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: X_MESSAGE_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({ method: "POST", path: "/v3/mail/send", contentType: "application/json", authScheme: "Bearer" });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(actual.headers.accept).toBe(expected.headers.accept);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    [
      "400 validation",
      400,
      {},
      {
        errors: [
          {
            message: "The from address does not match a verified Sender Identity.",
            field: "from",
            help: "http://sendgrid.com/docs/for-developers/sending-email/sender-identity/",
          },
        ],
      },
      "permanent",
      undefined,
    ],
    [
      "401",
      401,
      {},
      { errors: [{ message: "The provided authorization grant is invalid, expired, or revoked", field: null, help: null }] },
      "permanent",
      undefined,
    ],
    ["403", 403, {}, { errors: [{ message: "access forbidden", field: null, help: null }] }, "permanent", undefined],
    ["413", 413, {}, { errors: [{ message: "Payload Too Large", field: null, help: null }] }, "permanent", undefined],
  ])("classifies %s", async (_name, status, headers, body, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(sendgrid, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind, code: `http_${status}`, ...(retryAfterSeconds ? { retryAfterSeconds } : {}) });
  });

  it("waits until X-RateLimit-Reset on a 429 without Retry-After", async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    server.answer({ status: 429, headers: { "x-ratelimit-reset": String(reset) }, body: { errors: [{ message: "too many requests" }] } });
    const { outcome } = await sendWith(sendgrid, { credentials, baseUrl: server.url }, { to: "ada@example.com", content: message });
    expect(outcome).toMatchObject({ ok: false, kind: "retryable" });
    expect(!outcome.ok && outcome.retryAfterSeconds).toBeGreaterThanOrEqual(29);
  });
});

describe("sendgrid Event Webhook", () => {
  const integration: IntegrationConfig = { id: "int_1", provider: "sendgrid", channel: "email", credentials, settings: {}, baseUrl: null };
  const body = JSON.stringify([
    {
      email: "ada@example.com",
      timestamp: 1700000000,
      event: "processed",
      sg_event_id: "e0",
      sg_message_id: `${X_MESSAGE_ID}.filterdrecv-1`,
    },
    {
      email: "ada@example.com",
      timestamp: 1700000010,
      event: "delivered",
      sg_event_id: "e1",
      sg_message_id: `${X_MESSAGE_ID}.filterdrecv-1`,
      response: "250 OK",
    },
    {
      email: "bob@example.com",
      timestamp: 1700000020,
      event: "bounce",
      type: "bounce",
      reason: "550 5.1.1 unknown user",
      sg_event_id: "e2",
      sg_message_id: "Other1.filterdrecv-2",
    },
    { email: "cy@example.com", timestamp: 1700000030, event: "open", sg_event_id: "e3", sg_message_id: "Other2.filterdrecv-3" },
  ]);
  const now = () => String(Math.floor(Date.now() / 1000));
  const signed = (payload: string, timestamp = now()) => ({
    "x-twilio-email-event-webhook-signature": sign("sha256", Buffer.from(timestamp + payload), keys.privateKey).toString("base64"),
    "x-twilio-email-event-webhook-timestamp": timestamp,
  });

  it("accepts what the official verifier accepts", async () => {
    const headers = signed(body);
    const sdk = new EventWebhook();
    const publicKey = sdk.convertPublicKeyToECDSA(keys.publicKey.export({ type: "spki", format: "pem" }).toString());
    expect(
      sdk.verifySignature(
        publicKey,
        body,
        headers["x-twilio-email-event-webhook-signature"],
        headers["x-twilio-email-event-webhook-timestamp"],
      ),
    ).toBe(true);
    expect(await sendgrid.webhook!.verify({ headers: new Headers(headers), body }, integration)).toBe(true);
  });

  it.each([
    ["a changed body", (h: Record<string, string>) => ({ headers: h, body: body.replace("delivered", "dropped") })],
    [
      "a changed timestamp",
      (h: Record<string, string>) => ({
        headers: { ...h, "x-twilio-email-event-webhook-timestamp": String(Number(h["x-twilio-email-event-webhook-timestamp"]) + 1) },
        body,
      }),
    ],
    [
      "no signature",
      (h: Record<string, string>) => ({
        headers: { "x-twilio-email-event-webhook-timestamp": h["x-twilio-email-event-webhook-timestamp"]! },
        body,
      }),
    ],
    [
      "a garbage signature",
      (h: Record<string, string>) => ({ headers: { ...h, "x-twilio-email-event-webhook-signature": "bm90IGEgc2lnbmF0dXJl" }, body }),
    ],
  ])("refuses %s", async (_name, tamper) => {
    const { headers, body: payload } = tamper(signed(body));
    expect(await sendgrid.webhook!.verify({ headers: new Headers(headers), body: payload }, integration)).toBe(false);
  });

  it.each([
    ["eleven minutes old", -660],
    ["eleven minutes ahead", 660],
  ])("refuses a correctly signed timestamp %s, so a captured batch cannot be replayed later", async (_name, offset) => {
    const headers = signed(body, String(Math.floor(Date.now() / 1000) + offset));
    expect(await sendgrid.webhook!.verify({ headers: new Headers(headers), body }, integration)).toBe(false);
  });

  it("refuses everything when no verification key is configured", async () => {
    const bare = { ...integration, credentials: { apiKey: credentials.apiKey, from: credentials.from } };
    expect(await sendgrid.webhook!.verify({ headers: new Headers(signed(body)), body }, bare)).toBe(false);
  });

  it("parses events into status updates keyed by the X-Message-Id", () => {
    expect(sendgrid.webhook!.parse(body)).toEqual([
      {
        providerMessageId: X_MESSAGE_ID,
        status: "delivered",
        at: new Date(1700000010_000),
        detail: { event: "delivered" },
        eventId: "e1",
      },
      {
        providerMessageId: "Other1",
        status: "bounced",
        at: new Date(1700000020_000),
        detail: { event: "bounce", type: "bounce", reason: "550 5.1.1 unknown user" },
        suppress: "hard_bounce",
        eventId: "e2",
      },
      { providerMessageId: "Other2", status: "opened", at: new Date(1700000030_000), detail: { event: "open" }, eventId: "e3" },
    ]);
  });
});

const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": "<https://clarion.example/u/eyJhIjoxfQ.c2lnbmF0dXJl>",
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};

describe("sendgrid adapter: List-Unsubscribe (RFC 8058)", () => {
  it("passes the headers as the official SDK does", async () => {
    server.answer(accepted);
    const client = new Client();
    client.setApiKey(credentials.apiKey);
    client.setDefaultRequest("baseUrl", `${server.url}/`);
    const sdk = new MailService();
    sdk.setClient(client);
    await sdk.send({
      from: credentials.from,
      to: "ada@example.com",
      subject: message.subject,
      html: message.html,
      text: message.text,
      headers: LIST_UNSUBSCRIBE,
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    const content = { subject: message.subject, html: message.html, text: message.text, headers: LIST_UNSUBSCRIBE };
    await sendWith(sendgrid, { credentials, baseUrl: server.url }, { to: "ada@example.com", content });
    const actual = server.requests.at(-1)!;
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
    expect(JSON.parse(actual.text).headers).toEqual(LIST_UNSUBSCRIBE);
  });
});
