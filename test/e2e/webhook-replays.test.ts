import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SuppressionList } from "../../src/features/suppressions/schemas";
import { signStandardWebhook } from "../../src/providers/standard-webhooks";
import { hmacHex } from "../../src/providers/signatures";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { api } from "../request";
import { createWorkflow, messageDetail, settledMessages, trigger } from "./helpers";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const MAILGUN_KEY = "key-mailgun-signing";

/** An environment whose one email integration is `provider` on the fake server, and a message sent through it. */
async function sentThrough(provider: "resend" | "mailgun") {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  const providerId = `${provider}-${unique("id")}`;
  await scenario.script([{ status: 200, body: provider === "resend" ? { id: providerId } : { id: `<${providerId}>`, message: "Queued" } }]);
  const credentials =
    provider === "resend"
      ? { apiKey: "re_x", from: "a@acme.dev", webhookSecret: SECRET }
      : { apiKey: "mg-key", domain: "mg.acme.dev", from: "a@mg.acme.dev", webhookSigningKey: MAILGUN_KEY };
  const integrationId = await createIntegration(id, { provider, channel: "email", credentials, baseUrl: scenario.baseUrl, primary: true });
  await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
  const transactionId = await trigger(key, { workflow: "hello", to: { subscriberId: unique("s"), email: "w@example.com" } });
  const [message] = await settledMessages(key, transactionId, 1);
  return { key, integrationId, providerId, message: message! };
}

/** Posts a Resend (Svix-signed) webhook; the same `svixId` and `timestamp` make an exact replay. */
async function postResend(integrationId: string, body: string, svixId = `msg_${unique("wh")}`, timestamp = Math.floor(Date.now() / 1000)) {
  const res = await SELF.fetch(`http://clarion.test/v1/webhooks/resend/${integrationId}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "svix-id": svixId,
      "svix-timestamp": String(timestamp),
      "svix-signature": await signStandardWebhook(SECRET, svixId, timestamp, body),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const resendEvent = (type: string, emailId: string, createdAt: string, data: Record<string, unknown> = {}) =>
  JSON.stringify({ type, created_at: createdAt, data: { email_id: emailId, ...data } });

const statuses = async (key: string, messageId: string) => (await messageDetail(key, messageId)).events.map((e) => e.status);

describe("status webhook replays", () => {
  it("records one bounced event when the same Resend delivery is posted twice", async () => {
    const { key, integrationId, providerId, message } = await sentThrough("resend");
    const body = resendEvent("email.bounced", providerId, new Date().toISOString(), { bounce: { type: "Permanent" } });
    const svixId = `msg_${unique("wh")}`;
    const timestamp = Math.floor(Date.now() / 1000);
    expect((await postResend(integrationId, body, svixId, timestamp)).body).toEqual({ received: 1, applied: 1 });
    expect((await postResend(integrationId, body, svixId, timestamp)).body).toEqual({ received: 1, applied: 0 });
    expect(await statuses(key, message.id)).toEqual(["queued", "sending", "sent", "bounced"]);
  });

  it("adds no second delivered event when the provider reports delivery again under a new id", async () => {
    const { key, integrationId, providerId, message } = await sentThrough("resend");
    const at = new Date().toISOString();
    await postResend(integrationId, resendEvent("email.delivered", providerId, at));
    await postResend(integrationId, resendEvent("email.delivered", providerId, at));
    expect(await statuses(key, message.id)).toEqual(["queued", "sending", "sent", "delivered"]);
  });

  it("keeps opened when a late delivered arrives, recording the delivery once", async () => {
    const { key, integrationId, providerId, message } = await sentThrough("resend");
    const opened = new Date();
    await postResend(integrationId, resendEvent("email.opened", providerId, opened.toISOString()));
    await postResend(integrationId, resendEvent("email.delivered", providerId, new Date(opened.getTime() - 1000).toISOString()));
    await postResend(integrationId, resendEvent("email.delivered", providerId, new Date(opened.getTime() - 500).toISOString()));
    const detail = await messageDetail(key, message.id);
    expect(detail.status).toBe("opened");
    expect(detail.events.filter((e) => e.status === "delivered")).toHaveLength(1);
  });

  it("ignores a Mailgun signature reused with other event data, since it does not cover the event", async () => {
    const { key, integrationId, providerId, message } = await sentThrough("mailgun");
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = unique("token");
    const signature = { timestamp, token, signature: await hmacHex("SHA-256", MAILGUN_KEY, timestamp + token) };
    const eventData = (event: Record<string, unknown>) => ({
      id: unique("evt"),
      timestamp: Date.now() / 1000,
      recipient: "w@example.com",
      message: { headers: { "message-id": providerId } },
      ...event,
    });
    const post = (event: Record<string, unknown>) =>
      SELF.fetch(`http://clarion.test/v1/webhooks/mailgun/${integrationId}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ signature, "event-data": eventData(event) }),
      }).then(async (res) => ({ status: res.status, body: await res.json() }));

    expect(await post({ event: "delivered" })).toEqual({ status: 200, body: { received: 1, applied: 1 } });
    expect(await post({ event: "failed", severity: "permanent", reason: "bounce" })).toEqual({
      status: 200,
      body: { received: 1, applied: 0 },
    });
    const detail = await messageDetail(key, message.id);
    expect(detail.status).toBe("delivered");
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "delivered"]);
    expect((await api<SuppressionList>(key, "GET", "/v1/suppressions")).body.data).toEqual([]);
  });
});

/** A SendGrid Signed Event Webhook key pair: the SPKI for the integration, and a signer of timestamp + body. */
async function sendgridSigner() {
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", keys.publicKey)) as ArrayBuffer);
  const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
  // SendGrid sends DER; Web Crypto signs r||s.
  const derInteger = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    const value = trimmed[0]! & 0x80 ? [0, ...trimmed] : [...trimmed];
    return [0x02, value.length, ...value];
  };
  const sign = async (timestamp: string, body: string) => {
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, new TextEncoder().encode(timestamp + body)),
    );
    const content = [...derInteger(raw.subarray(0, 32)), ...derInteger(raw.subarray(32))];
    return base64(new Uint8Array([0x30, content.length, ...content]));
  };
  return { publicKey: base64(spki), sign };
}

describe("SendGrid events", () => {
  it("suppresses an unsubscribe without changing the status, and applies each sg_event_id once", async () => {
    const { id, key } = await createEnvironment();
    const signer = await sendgridSigner();
    const scenario = fakeProviderScenario();
    const xMessageId = unique("sg");
    await scenario.script([{ status: 202, headers: { "x-message-id": xMessageId } }]);
    const integrationId = await createIntegration(id, {
      provider: "sendgrid",
      channel: "email",
      credentials: { apiKey: "SG.x", from: "a@acme.dev", webhookVerificationKey: signer.publicKey },
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
    const transactionId = await trigger(key, { workflow: "hello", to: { subscriberId: unique("s"), email: "Leaver@example.com" } });
    const [message] = await settledMessages(key, transactionId, 1);
    const now = Math.floor(Date.now() / 1000);
    const event = (name: string, eventId: string, at: number) => ({
      email: "leaver@example.com",
      event: name,
      timestamp: at,
      sg_event_id: eventId,
      sg_message_id: `${xMessageId}.filterdrecv-1`,
    });
    const post = async (events: unknown[]) => {
      const body = JSON.stringify(events);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await SELF.fetch(`http://clarion.test/v1/webhooks/sendgrid/${integrationId}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-twilio-email-event-webhook-signature": await signer.sign(timestamp, body),
          "x-twilio-email-event-webhook-timestamp": timestamp,
        },
        body,
      });
      return { status: res.status, body: await res.json() };
    };

    const opens = [event("open", "ev-open-1", now - 20), event("open", "ev-open-2", now - 10)];
    expect(await post([...opens, event("unsubscribe", "ev-unsub", now)])).toEqual({ status: 200, body: { received: 3, applied: 3 } });
    // SendGrid retries a batch it thinks failed: the same events, signed again.
    expect(await post([opens[1]])).toEqual({ status: 200, body: { received: 1, applied: 0 } });

    const detail = await messageDetail(key, message!.id);
    expect(detail.status).toBe("opened");
    expect(detail.events.filter((e) => e.status === "opened").map((e) => e.detail?.event)).toEqual(["open", "open"]);
    expect(detail.events).toHaveLength(5);
    expect((await api<SuppressionList>(key, "GET", "/v1/suppressions")).body.data).toEqual([
      expect.objectContaining({ address: "leaver@example.com", reason: "unsubscribed", provider: "sendgrid", messageId: message!.id }),
    ]);
  });
});

describe("status webhook body limit", () => {
  const big = JSON.stringify({ type: "email.delivered", padding: "x".repeat(300 * 1024) });

  it.each([
    ["with a Content-Length", () => big],
    [
      "streamed without a Content-Length",
      () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(big));
            controller.close();
          },
        }),
    ],
  ])("answers a body over 256 KiB %s with 413 before looking at the signature", async (_name, body) => {
    const { integrationId } = await sentThrough("resend");
    const res = await SELF.fetch(`http://clarion.test/v1/webhooks/resend/${integrationId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body(),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
  });
});
