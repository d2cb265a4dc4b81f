import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hmacHex } from "../../../src/providers/signatures";
import { signStandardWebhook } from "../../../src/providers/standard-webhooks";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../../factories";
import { SNS_TEST_CERTIFICATE, snsNotification } from "../../fixtures/sns-signing";
import { createWorkflow, messageDetail, settledMessages, trigger } from "../helpers";

type Scenario = ReturnType<typeof fakeProviderScenario>;
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
type Captured = { method: string; path: string; headers: Record<string, string>; body: string };

const SUBJECT = "Order 42 shipped";
const HTML = "<p>On its way</p>";
const TO = "ada@example.com";
const RESEND_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SES_TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-events";

/** Whole-second provider timestamps (SendGrid, Brevo) rounded past the send, so the event log stays in order. */
/** The RFC 8058 pair every email of a non-critical workflow carries, in each provider's wire format below. */
const LIST_UNSUBSCRIBE = {
  "List-Unsubscribe": expect.stringMatching(/^<http:\/\/127\.0\.0\.1:8787\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>$/),
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
};
const HEADER_LIST = Object.entries(LIST_UNSUBSCRIBE).map(([Name, Value]) => ({ Name, Value }));

const afterNow = () => Math.ceil(Date.now() / 1000) + 1;

const bytesToBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** Web Crypto's raw r||s ECDSA signature as the DER SEQUENCE SendGrid sends. */
function rawToDer(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    const value = trimmed[0]! & 0x80 ? Uint8Array.of(0, ...trimmed) : trimmed;
    return Uint8Array.of(0x02, value.length, ...value);
  };
  const r = integer(raw.subarray(0, 32));
  const s = integer(raw.subarray(32));
  return Uint8Array.of(0x30, r.length + s.length, ...r, ...s);
}

const sendgridKeys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
const sendgridVerificationKey = bytesToBase64((await crypto.subtle.exportKey("spki", sendgridKeys.publicKey)) as ArrayBuffer);

interface EmailCase {
  provider: string;
  credentials: (s: Scenario) => Record<string, unknown>;
  /** The provider's success answer(s); the first answers the send. */
  answers: (providerMessageId: string) => Answer[];
  /** What the provider answered with, and the id Clarion keeps (SendGrid's header, Mailgun's without brackets). */
  providerMessageId: string;
  path: string;
  checkRequest: (request: Captured) => void | Promise<void>;
  /** A correctly signed "delivered" status webhook for the message. */
  deliveredWebhook: (providerMessageId: string, s: Scenario) => Promise<{ headers: Record<string, string>; body: string }>;
  /** The same webhook, altered the way an attacker could (what the provider's scheme protects differs). */
  tamper?: (webhook: { headers: Record<string, string>; body: string }) => { headers: Record<string, string>; body: string };
}

const changeBody = (webhook: { headers: Record<string, string>; body: string }) => ({
  ...webhook,
  body: webhook.body.replace(TO, "eve@example.com"),
});

const CASES: EmailCase[] = [
  {
    provider: "resend",
    credentials: () => ({ apiKey: "re_test_123", from: "Acme <hi@acme.dev>", webhookSecret: RESEND_SECRET }),
    providerMessageId: "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
    answers: (id) => [{ status: 200, body: { id } }],
    path: "/emails",
    checkRequest: ({ headers, body }) => {
      expect(headers.authorization).toBe("Bearer re_test_123");
      expect(JSON.parse(body)).toEqual({ from: "Acme <hi@acme.dev>", to: [TO], subject: SUBJECT, html: HTML, headers: LIST_UNSUBSCRIBE });
    },
    deliveredWebhook: async (id) => {
      const body = JSON.stringify({ type: "email.delivered", created_at: new Date().toISOString(), data: { email_id: id, to: [TO] } });
      const webhookId = `msg_${unique("wh")}`;
      const timestamp = Math.floor(Date.now() / 1000);
      return {
        headers: {
          "svix-id": webhookId,
          "svix-timestamp": String(timestamp),
          "svix-signature": await signStandardWebhook(RESEND_SECRET, webhookId, timestamp, body),
        },
        body,
      };
    },
  },
  {
    provider: "sendgrid",
    credentials: () => ({ apiKey: "SG.test.key", from: "Acme <hi@acme.dev>", webhookVerificationKey: sendgridVerificationKey }),
    providerMessageId: "W86EgYT6SQKk0lRflfLRsA",
    answers: (id) => [{ status: 202, headers: { "x-message-id": id }, body: "" }],
    path: "/v3/mail/send",
    checkRequest: ({ headers, body }) => {
      expect(headers.authorization).toBe("Bearer SG.test.key");
      expect(JSON.parse(body)).toEqual({
        from: { email: "hi@acme.dev", name: "Acme" },
        subject: SUBJECT,
        personalizations: [{ to: [{ email: TO }] }],
        content: [{ type: "text/html", value: HTML }],
        headers: LIST_UNSUBSCRIBE,
      });
    },
    deliveredWebhook: async (id) => {
      const body = JSON.stringify([
        { email: TO, timestamp: afterNow(), event: "delivered", sg_event_id: unique("ev"), sg_message_id: `${id}.filterdrecv-1` },
      ]);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const raw = new Uint8Array(
        await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, sendgridKeys.privateKey, new TextEncoder().encode(timestamp + body)),
      );
      return {
        headers: {
          "x-twilio-email-event-webhook-signature": bytesToBase64(rawToDer(raw)),
          "x-twilio-email-event-webhook-timestamp": timestamp,
        },
        body,
      };
    },
  },
  {
    provider: "postmark",
    credentials: () => ({
      serverToken: "pm-server-token",
      from: "Acme <hi@acme.dev>",
      webhookUsername: "clarion",
      webhookPassword: "hook-pass",
    }),
    providerMessageId: "b7bc2f4a-e38e-4336-af7d-e6c392c2f817",
    answers: (id) => [{ status: 200, body: { To: TO, SubmittedAt: new Date().toISOString(), MessageID: id, ErrorCode: 0, Message: "OK" } }],
    path: "/email",
    tamper: (webhook) => ({ ...webhook, headers: { authorization: `Basic ${btoa("clarion:guess")}` } }),
    checkRequest: ({ headers, body }) => {
      expect(headers["x-postmark-server-token"]).toBe("pm-server-token");
      expect(JSON.parse(body)).toEqual({ From: "Acme <hi@acme.dev>", To: TO, Subject: SUBJECT, HtmlBody: HTML, Headers: HEADER_LIST });
    },
    deliveredWebhook: async (id) => ({
      headers: { authorization: `Basic ${btoa("clarion:hook-pass")}` },
      body: JSON.stringify({
        RecordType: "Delivery",
        MessageID: id,
        Recipient: TO,
        DeliveredAt: new Date().toISOString(),
        Details: "250 OK",
        MessageStream: "outbound",
      }),
    }),
  },
  {
    provider: "mailgun",
    credentials: () => ({
      apiKey: "key-test",
      domain: "mg.acme.dev",
      from: "Acme <hi@mg.acme.dev>",
      webhookSigningKey: "mailgun-signing-key",
    }),
    providerMessageId: "20240101100000.1.ABCDEF@mg.acme.dev",
    answers: (id) => [{ status: 200, body: { id: `<${id}>`, message: "Queued. Thank you." } }],
    path: "/v3/mg.acme.dev/messages",
    // Mailgun signs timestamp + token only, not the event data: change the token.
    tamper: (webhook) => ({ ...webhook, body: webhook.body.replace('"token":"token-', '"token":"forged-') }),
    checkRequest: async ({ headers, body }) => {
      expect(headers.authorization).toBe(`Basic ${btoa("api:key-test")}`);
      expect(headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
      const form = await new Request("http://x", {
        method: "POST",
        headers: { "content-type": headers["content-type"]! },
        body,
      }).formData();
      const fields: Record<string, string> = {};
      form.forEach((value, name) => {
        fields[name] = String(value);
      });
      expect(fields).toEqual({
        from: "Acme <hi@mg.acme.dev>",
        to: TO,
        subject: SUBJECT,
        html: HTML,
        "h:List-Unsubscribe": LIST_UNSUBSCRIBE["List-Unsubscribe"],
        "h:List-Unsubscribe-Post": LIST_UNSUBSCRIBE["List-Unsubscribe-Post"],
      });
    },
    deliveredWebhook: async (id) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const token = unique("token");
      const signature = await hmacHex("SHA-256", "mailgun-signing-key", timestamp + token);
      const body = JSON.stringify({
        signature: { timestamp, token, signature },
        "event-data": {
          event: "delivered",
          id: unique("ev"),
          timestamp: Date.now() / 1000,
          recipient: TO,
          message: { headers: { "message-id": id } },
        },
      });
      return { headers: {}, body };
    },
  },
  {
    provider: "ses",
    credentials: (s) => ({
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      region: "eu-west-1",
      from: "Acme <hi@acme.dev>",
      snsTopicArn: SES_TOPIC,
      snsTrustedUrlPrefix: s.baseUrl,
    }),
    providerMessageId: "0102018c6f3f2a7e-5c4d1a2b-1111-2222-3333-444455556666-000000",
    // After the send, the fake provider serves the SNS signing certificate.
    answers: (id) => [
      { status: 200, body: { MessageId: id } },
      { status: 200, headers: { "content-type": "text/plain" }, body: SNS_TEST_CERTIFICATE },
    ],
    path: "/v2/email/outbound-emails",
    checkRequest: ({ headers, body }) => {
      expect(headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
      );
      expect(JSON.parse(body)).toEqual({
        FromEmailAddress: "Acme <hi@acme.dev>",
        Destination: { ToAddresses: [TO] },
        Content: {
          Simple: { Subject: { Data: SUBJECT, Charset: "UTF-8" }, Body: { Html: { Data: HTML, Charset: "UTF-8" } }, Headers: HEADER_LIST },
        },
      });
    },
    deliveredWebhook: async (id, s) => ({
      headers: { "x-amz-sns-message-type": "Notification", "content-type": "text/plain; charset=UTF-8" },
      body: await snsNotification({
        topicArn: SES_TOPIC,
        signingCertUrl: `${s.baseUrl}/SimpleNotificationService-0000.pem`,
        sesEvent: {
          eventType: "Delivery",
          mail: { timestamp: new Date().toISOString(), source: "hi@acme.dev", messageId: id, destination: [TO] },
          delivery: { timestamp: new Date().toISOString(), recipients: [TO], smtpResponse: "250 2.0.0 OK" },
        },
      }),
    }),
  },
  {
    provider: "brevo",
    credentials: () => ({ apiKey: "xkeysib-test", from: "Acme <hi@acme.dev>", webhookToken: "brevo-hook-token" }),
    providerMessageId: "<202401011000.12345678901@smtp-relay.mailin.fr>",
    answers: (id) => [{ status: 201, body: { messageId: id } }],
    path: "/v3/smtp/email",
    tamper: (webhook) => ({ ...webhook, headers: { authorization: "Bearer guess" } }),
    checkRequest: ({ headers, body }) => {
      expect(headers["api-key"]).toBe("xkeysib-test");
      expect(JSON.parse(body)).toEqual({
        sender: { email: "hi@acme.dev", name: "Acme" },
        to: [{ email: TO }],
        subject: SUBJECT,
        htmlContent: HTML,
        headers: LIST_UNSUBSCRIBE,
      });
    },
    deliveredWebhook: async (id) => ({
      headers: { authorization: "Bearer brevo-hook-token" },
      body: JSON.stringify({
        event: "delivered",
        email: TO,
        id: 1,
        date: "2024-01-01 11:00:00",
        ts_event: afterNow(),
        "message-id": id,
        subject: SUBJECT,
      }),
    }),
  },
];

async function sentThrough(c: EmailCase) {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  await scenario.script(c.answers(c.providerMessageId));
  const integrationId = await createIntegration(id, {
    provider: c.provider,
    channel: "email",
    credentials: c.credentials(scenario),
    baseUrl: scenario.baseUrl,
    primary: true,
  });
  await createWorkflow(key, { key: "shipped", steps: [{ id: "mail", type: "email", template: { subject: SUBJECT, html: HTML } }] });
  const transactionId = await trigger(key, { workflow: "shipped", to: { subscriberId: unique("s"), email: TO } });
  const [message] = await settledMessages(key, transactionId, 1);
  return { key, scenario, integrationId, message: message! };
}

describe.each(CASES)("email through $provider", (c) => {
  it("sends the provider's request and keeps its message id, then a signed status webhook marks it delivered", async () => {
    const { key, scenario, integrationId, message } = await sentThrough(c);
    expect(message).toMatchObject({ status: "sent", provider: c.provider, providerMessageId: c.providerMessageId, to: TO });

    const [request] = await scenario.captured();
    expect(request).toMatchObject({ method: "POST", path: c.path });
    await c.checkRequest(request!);

    const webhook = await c.deliveredWebhook(c.providerMessageId, scenario);
    const res = await SELF.fetch(`http://clarion.test/v1/webhooks/${c.provider}/${integrationId}`, {
      method: "POST",
      headers: webhook.headers,
      body: webhook.body,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 1, applied: 1 });
    const detail = await messageDetail(key, message.id);
    expect(detail.status).toBe("delivered");
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "delivered"]);
  });

  it("refuses a status webhook that was altered after signing", async () => {
    const { key, scenario, integrationId, message } = await sentThrough(c);
    const tampered = (c.tamper ?? changeBody)(await c.deliveredWebhook(c.providerMessageId, scenario));
    const res = await SELF.fetch(`http://clarion.test/v1/webhooks/${c.provider}/${integrationId}`, {
      method: "POST",
      headers: tampered.headers,
      body: tampered.body,
    });
    expect(res.status).toBe(401);
    expect((await messageDetail(key, message.id)).status).toBe("sent");
  });
});
