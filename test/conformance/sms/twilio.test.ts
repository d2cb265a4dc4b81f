import twilioSdk from "twilio";
import RequestClient from "twilio/lib/base/RequestClient";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twilio, twilioSignature } from "../../../src/providers/sms/twilio";
import type { IntegrationConfig } from "../../../src/providers/types";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef";
const AUTH_TOKEN = "f1e2d3c4b5a697887766554433221100";
const PUBLIC_URL = "https://clarion.example.com";
const credentials = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: "+15005550006", publicUrl: PUBLIC_URL };
const integration: IntegrationConfig = {
  id: "int_conformance",
  provider: "twilio",
  channel: "sms",
  credentials,
  settings: {},
  baseUrl: null,
};
const callbackUrl = `${PUBLIC_URL}/v1/webhooks/twilio/int_conformance`;
const body = "Your code is 123 456 & it expires soon — ✓ +1";
const created = {
  sid: "SM1f0e8ae6ade43cb3c0ce4525424e404f",
  status: "queued",
  to: "+14155552671",
  from: "+15005550006",
  body,
  error_code: null,
};

/** The official client with its real request encoding, sent to the capture server instead of api.twilio.com. */
class LocalRequestClient extends RequestClient {
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    return super.request({ ...opts, uri: opts.uri.replace("https://api.twilio.com", server.url) });
  }
}

const sortedForm = (text: string) => [...new URLSearchParams(text)].sort(([a], [b]) => a.localeCompare(b));

describe("twilio adapter matches the official SDK", () => {
  it("sends the same request as `twilio` messages.create", async () => {
    server.answer({ status: 201, body: created });
    const sdk = twilioSdk(ACCOUNT_SID, AUTH_TOKEN, { httpClient: new LocalRequestClient() });
    await sdk.messages.create({ to: "+14155552671", from: credentials.from, body, statusCallback: callbackUrl });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(twilio, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: created.sid });
    expect(shape(actual)).toEqual(shape(expected));
    expect(shape(actual)).toMatchObject({
      method: "POST",
      path: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(sortedForm(actual.text)).toEqual(sortedForm(expected.text));
    // A literal "+" in a form body would arrive as a space.
    expect(actual.text).toContain("To=%2B14155552671");
  });

  it("sends through a Messaging Service when one is configured", async () => {
    server.answer({ status: 201, body: created });
    const sdk = twilioSdk(ACCOUNT_SID, AUTH_TOKEN, { httpClient: new LocalRequestClient() });
    const messagingServiceSid = "MG0123456789abcdef0123456789abcdef";
    await sdk.messages.create({ to: "+14155552671", messagingServiceSid, body });
    const expected = server.requests.at(-1)!;
    server.reset();

    await sendWith(
      twilio,
      { credentials: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, messagingServiceSid }, baseUrl: server.url },
      { to: "+14155552671", content: { body } },
    );
    expect(sortedForm(server.requests.at(-1)!.text)).toEqual(sortedForm(expected.text));
  });

  it.each([
    [
      "21610 unsubscribed",
      400,
      {},
      {
        code: 21610,
        message: "Attempt to send to unsubscribed recipient",
        more_info: "https://www.twilio.com/docs/errors/21610",
        status: 400,
      },
      "invalid_recipient",
      undefined,
    ],
    [
      "21614 not a mobile number",
      400,
      {},
      {
        code: 21614,
        message: "'To' number is not a valid mobile number",
        more_info: "https://www.twilio.com/docs/errors/21614",
        status: 400,
      },
      "invalid_recipient",
      undefined,
    ],
    [
      "21606 From not SMS-capable",
      400,
      {},
      {
        code: 21606,
        message: "The 'From' phone number provided is not a valid message-capable Twilio phone number for this destination.",
        more_info: "https://www.twilio.com/docs/errors/21606",
        status: 400,
      },
      "permanent",
      undefined,
    ],
    [
      "20003 authentication",
      401,
      {},
      { code: 20003, message: "Authenticate", more_info: "https://www.twilio.com/docs/errors/20003", status: 401 },
      "permanent",
      undefined,
    ],
  ])("classifies %s as %s", async (_name, status, headers, answer, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body: answer });
    const { outcome } = await sendWith(twilio, { credentials, baseUrl: server.url }, { to: "+14155552671", content: { body } });
    expect(outcome).toMatchObject({
      ok: false,
      kind,
      code: String(answer.code),
      message: answer.message,
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    });
  });
});

describe("twilio status callback", () => {
  const params = {
    SmsSid: created.sid,
    SmsStatus: "delivered",
    MessageStatus: "delivered",
    To: "+14155552671",
    MessageSid: created.sid,
    AccountSid: ACCOUNT_SID,
    From: "+15005550006",
    ApiVersion: "2010-04-01",
  };
  const raw = new URLSearchParams(params).toString();

  it("accepts a callback signed the way twilio.validateRequest checks it", async () => {
    const signature = twilioSdk.getExpectedTwilioSignature(AUTH_TOKEN, callbackUrl, params);
    expect(await twilioSignature(AUTH_TOKEN, callbackUrl, Object.entries(params))).toBe(signature);
    expect(await twilio.webhook!.verify({ headers: new Headers({ "x-twilio-signature": signature }), body: raw }, integration)).toBe(true);
  });

  it("rejects a tampered body, another URL, and a missing signature", async () => {
    const signature = twilioSdk.getExpectedTwilioSignature(AUTH_TOKEN, callbackUrl, params);
    const tampered = raw.replace("delivered", "undelivered");
    expect(await twilio.webhook!.verify({ headers: new Headers({ "x-twilio-signature": signature }), body: tampered }, integration)).toBe(
      false,
    );
    const elsewhere = twilioSdk.getExpectedTwilioSignature(AUTH_TOKEN, "https://evil.example/cb", params);
    expect(await twilio.webhook!.verify({ headers: new Headers({ "x-twilio-signature": elsewhere }), body: raw }, integration)).toBe(false);
    expect(await twilio.webhook!.verify({ headers: new Headers(), body: raw }, integration)).toBe(false);
  });

  it("verifies against the URL it was called at when no public URL is configured", async () => {
    const { publicUrl: _, ...withoutPublicUrl } = credentials;
    const local = { ...integration, credentials: withoutPublicUrl };
    const url = "https://hooks.example.com/v1/webhooks/twilio/int_conformance?x=1";
    const signature = twilioSdk.getExpectedTwilioSignature(AUTH_TOKEN, url, params);
    expect(twilioSdk.validateRequest(AUTH_TOKEN, signature, url, params)).toBe(true);
    expect(await twilio.webhook!.verify({ headers: new Headers({ "x-twilio-signature": signature }), body: raw, url }, local)).toBe(true);
    expect(await twilio.webhook!.verify({ headers: new Headers({ "x-twilio-signature": signature }), body: raw }, local)).toBe(false);
  });

  it.each([
    ["delivered", "delivered"],
    ["undelivered", "undeliverable"],
    ["failed", "failed"],
  ])("reads MessageStatus %s as %s", (twilioStatus, status) => {
    const updates = twilio.webhook!.parse(
      new URLSearchParams({
        ...params,
        MessageStatus: twilioStatus,
        SmsStatus: twilioStatus,
        ErrorCode: twilioStatus === "delivered" ? "" : "30005",
      }).toString(),
    );
    expect(updates).toEqual([
      { providerMessageId: created.sid, status, at: expect.any(Date), detail: expect.objectContaining({ status: twilioStatus }) },
    ]);
    if (twilioStatus !== "delivered") expect(updates[0]!.detail).toMatchObject({ errorCode: "30005" });
  });

  it("ignores intermediate statuses", () => {
    expect(twilio.webhook!.parse(new URLSearchParams({ ...params, MessageStatus: "sent", SmsStatus: "sent" }).toString())).toEqual([]);
  });
});
